/** Types for parse-prometheus-text-format 1.1.1 (it ships none): metric families with their samples, values as text. */
declare module 'parse-prometheus-text-format' {
  export interface PrometheusSample {
    value?: string;
    labels?: Record<string, string>;
    timestamp_ms?: string;
    /** Histograms and summaries. */
    buckets?: Record<string, string>;
    quantiles?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  export interface PrometheusFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: PrometheusSample[];
  }
  /** Throws on a line it cannot read. */
  export default function parsePrometheusTextFormat(text: string): PrometheusFamily[];
}

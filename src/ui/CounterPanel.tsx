import { VLLM_NAMES, exportCounters, schemaValidRate } from '../core/metrics';
import { describeK, reportedK } from '../contract/runParams';
import { encodeShare } from '../store/shareUrl';
import { CounterList, countersEntries } from './benchParts';
import { download } from './download';
import { METHOD_LABELS, percent } from './format';
import { HelpButton } from './HowItWorks';
import type { HelpTopic } from '../store/store';
import { useSpec } from './storeContext';

/** One row per counter for the CSV: our name, vLLM's name where it has one, and the value. */
function countersCsv(exported: ReturnType<typeof exportCounters>, slice: Record<string, string | number>): string {
  const vllmName: Readonly<Record<string, string>> = VLLM_NAMES;
  const rows = [['name', 'vllm_name', 'value'], ...Object.entries(slice).map(([key, value]) => [key, '', String(value)])];
  for (const [key, value] of Object.entries(exported.speclab)) rows.push([key, vllmName[key] ?? '', Array.isArray(value) ? value.join(' ') : String(value)]);
  return `${rows.map((row) => row.map((cell) => (/[",\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell)).join(',')).join('\n')}\n`;
}

/** The part of "How it works" each counter's "?" opens; the rest open the counters' part. */
const COUNTER_TOPICS: Readonly<Record<string, HelpTopic>> = { steps: 'speculative', 'mean-length': 'mean-length', histogram: 'histogram' };

export function CounterPanel() {
  const counters = useSpec((s) => s.run.counters);
  const params = useSpec((s) => s.params);
  const preset = useSpec((s) => s.preset);
  const scorecard = useSpec((s) => s.scorecard);
  const slice = { method: params.method, schema: preset, K: reportedK(params.method, params.K), L: params.L, temperature: params.temperature, drafting: params.drafting, seed: params.seed };
  const exported = () => exportCounters(counters);
  const share = () => {
    const url = `${location.origin}${location.pathname}${encodeShare({ params, preset })}`;
    history.replaceState(null, '', url);
    void navigator.clipboard?.writeText(url).catch(() => undefined);
  };
  return (
    <section className="counters" aria-labelledby="counter-heading">
      <div className="section-head">
        <h2 id="counter-heading">
          {METHOD_LABELS[params.method]} · schema {preset} · {describeK(params.method, params.K)} · L = {params.L} · T = {params.temperature}
        </h2>
        <span className="chart-exports">
          <button type="button" onClick={() => download('speclab-counters.json', new Blob([JSON.stringify({ slice, ...exported() }, null, 2)], { type: 'application/json' }))}>
            Counters JSON
          </button>
          <button type="button" onClick={() => download('speclab-counters.csv', new Blob([countersCsv(exported(), slice)], { type: 'text/csv' }))}>
            Counters CSV
          </button>
          <button type="button" onClick={share} data-testid="share">
            Share link
          </button>
        </span>
      </div>
      <CounterList
        testId="counters"
        entries={[
          ...countersEntries(counters),
          ['schema-valid completions / completions', `${percent(schemaValidRate(scorecard))} of ${scorecard.completions} (truncated ${scorecard.truncated}, dead ends ${scorecard.deadEnds})`],
        ]}
        help={(key) => <HelpButton topic={COUNTER_TOPICS[key ?? ''] ?? 'counters'} />}
      />
    </section>
  );
}

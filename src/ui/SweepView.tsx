/**
 * The K × L sweep: the current prompt, schema and sampling, one method, every (K, L) cell against AR on the
 * same seeds (the engine's bench scheduler in the worker, as `npm run sweep`). Heatmaps of mean acceptance length, speedup and A/R,
 * the best cell of each marked; progress with Cancel; CSV and JSON export.
 */
import { useState } from 'react';
import {
  DEFAULT_SAMPLE_TOKEN_BUDGET,
  bestCell,
  parseSweepList,
  sweepCellJson,
  sweepCsv,
  SWEEP_METRICS,
  type SweepCell,
  type SweepMetric,
} from '../contract/bench';
import { DECODE_METHODS, isBaseline, type DecodeMethod } from '../contract/runParams';
import { ExportButtons, JobProgress, medianRange } from './benchParts';
import { METHOD_LABELS } from './format';
import { useSpec } from './storeContext';

/** Colour for a value within [low, high]: from the panel's dark blue to Okabe–Ito bluish green. */
function heat(value: number, low: number, high: number): string {
  const share = high > low ? (value - low) / (high - low) : 1;
  return `color-mix(in srgb, #009e73 ${Math.round(15 + 70 * share)}%, #0d1014)`;
}

function Heatmap({ cells, metric }: { cells: readonly SweepCell[]; metric: SweepMetric }) {
  const { title, digits, value } = SWEEP_METRICS[metric];
  const Ks = [...new Set(cells.map((cell) => cell.K))].sort((a, b) => a - b);
  const Ls = [...new Set(cells.map((cell) => cell.L))].sort((a, b) => a - b);
  const values = cells.map(value).filter((v): v is number => v !== null);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const best = bestCell(cells, metric);
  return (
    <table className="heatmap" data-heatmap={metric}>
      <caption>{title}; rows K drafts, columns L draft length; ★ best</caption>
      <thead>
        <tr>
          <th scope="col">K \ L</th>
          {Ls.map((L) => (
            <th key={L} scope="col">
              L={L}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {Ks.map((K) => (
          <tr key={K}>
            <th scope="row">K={K}</th>
            {Ls.map((L) => {
              const cell = cells.find((candidate) => candidate.K === K && candidate.L === L);
              const v = cell ? value(cell) : null;
              const isBest = cell !== undefined && cell === best;
              return (
                <td
                  key={L}
                  data-cell={`${K}x${L}`}
                  data-best={isBest || undefined}
                  style={v === null ? undefined : { background: heat(v, low, high) }}
                  title={
                    cell && metric === 'speedup'
                      ? `median ${medianRange(cell.speedup, 2, '×')} over ${cell.speedup.n} samples`
                      : undefined
                  }
                >
                  {v === null ? '—' : v.toFixed(digits)}
                  {isBest && <span aria-label="best cell"> ★</span>}
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const SWEEPABLE = DECODE_METHODS.filter((method) => !isBaseline(method));

export function SweepView() {
  const params = useSpec((s) => s.params);
  const ready = useSpec((s) => s.engine.status === 'ready');
  const sweep = useSpec((s) => s.sweep);
  const startSweep = useSpec((s) => s.startSweep);
  const cancelBench = useSpec((s) => s.cancelBench);
  const [method, setMethod] = useState<DecodeMethod>(isBaseline(params.method) ? 'spectr-gbv' : params.method);
  const [Ks, setKs] = useState('1,2');
  const [Ls, setLs] = useState('2,4');
  const [seeds, setSeeds] = useState(1);
  const [maxTokens, setMaxTokens] = useState(24);
  const [tokenBudget, setTokenBudget] = useState(1);
  const [problem, setProblem] = useState<string | null>(null);
  const running = sweep.status === 'running';
  const start = () => {
    try {
      const spec = {
        base: { ...params, method, maxTokens },
        Ks: parseSweepList('K', Ks),
        Ls: parseSweepList('L', Ls),
        seeds,
        tokenBudget,
      };
      setProblem(null);
      startSweep(spec);
    } catch (error) {
      setProblem((error as Error).message);
    }
  };
  const cells = sweep.cells;
  return (
    <section className="sweep" aria-label="K × L sweep" data-testid="sweep">
      <h2>K × L sweep: {METHOD_LABELS[method]} against AR on the current prompt</h2>
      <div className="row">
        <label className="field" htmlFor="sweep-method">
          <span>Method</span>
          <select id="sweep-method" value={method} onChange={(event) => setMethod(event.target.value as DecodeMethod)}>
            {SWEEPABLE.map((id) => (
              <option key={id} value={id}>
                {METHOD_LABELS[id]}
              </option>
            ))}
          </select>
        </label>
        <label className="field" htmlFor="sweep-K">
          <span>K values (single-draft methods use K = 1)</span>
          <input id="sweep-K" value={Ks} onChange={(event) => setKs(event.target.value)} />
        </label>
        <label className="field" htmlFor="sweep-L">
          <span>L values</span>
          <input id="sweep-L" value={Ls} onChange={(event) => setLs(event.target.value)} />
        </label>
        <label className="field" htmlFor="sweep-seeds">
          <span>Seeds per cell</span>
          <select id="sweep-seeds" value={seeds} onChange={(event) => setSeeds(Number(event.target.value))}>
            {[1, 2, 3, 5].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <label className="field" htmlFor="sweep-token-budget">
          <span>Tokens per sample, at least</span>
          <select
            id="sweep-token-budget"
            value={tokenBudget}
            onChange={(event) => setTokenBudget(Number(event.target.value))}
          >
            {[1, DEFAULT_SAMPLE_TOKEN_BUDGET, 300].map((n) => (
              <option key={n} value={n}>
                {n === 1 ? 'one run' : n}
              </option>
            ))}
          </select>
        </label>
        <label className="field" htmlFor="sweep-max-tokens">
          <span>Max tokens per run</span>
          <select
            id="sweep-max-tokens"
            value={maxTokens}
            onChange={(event) => setMaxTokens(Number(event.target.value))}
          >
            {[12, 24, 48, 96].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={start} disabled={!ready || running}>
          Run sweep
        </button>
      </div>
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
      {sweep.status !== 'idle' && (
        <JobProgress label="Sweep" done={sweep.done} total={sweep.total} running={running} onCancel={cancelBench} />
      )}
      {sweep.error && (
        <p className="error" role="alert">
          {sweep.error}
        </p>
      )}
      <p data-testid="sweep-status" data-status={sweep.status}>
        {sweep.status === 'cancelled'
          ? `Cancelled after ${cells.length} cells.`
          : sweep.status === 'done'
            ? `Done: ${cells.length} cells.`
            : ''}
      </p>
      {cells.length > 0 && (
        <>
          <p className="chart-note-dark">
            Each cell sums the counters of {sweep.spec?.seeds ?? 1} {sweep.spec?.seeds === 1 ? 'sample' : 'samples'}
            {(sweep.spec?.tokenBudget ?? 1) > 1
              ? `, each run on successive seeds until AR and the method have output ${sweep.spec?.tokenBudget} tokens`
              : ', one run each'}
            ; speedup is the median over those samples of the method’s tokens/s over AR’s on the same seeds, timed next
            to it in alternating order after one untimed warm-up of each.
          </p>
          <div className="heatmaps">
            {(Object.keys(SWEEP_METRICS) as SweepMetric[]).map((metric) => (
              <Heatmap key={metric} cells={cells} metric={metric} />
            ))}
          </div>
          <ExportButtons
            name="speclab-sweep"
            json={() => ({ method, cells: cells.map(sweepCellJson) })}
            csv={() => sweepCsv(cells)}
          />
        </>
      )}
    </section>
  );
}

/**
 * The structured-output scorecard (as `npm run scorecard`): per schema family, the schema on and the same
 * prompt decoded without it, with correctness first, then the counters, ratios and costs. Exportable.
 */
import { useState } from 'react';
import { scorecardCsv, scorecardRowJson } from '../contract/bench';
import { SCHEMA_PRESETS, type SchemaPreset } from '../contract/presets';
import { ExportButtons, JobProgress } from './benchParts';
import { fixed, METHOD_LABELS, percent } from './format';
import { useSpec } from './storeContext';
import { VERDICT_TEXT } from '../core/verdict';
import { describeK } from '../contract/runParams';

type RowJson = ReturnType<typeof scorecardRowJson>;

/** A median with its 95% interval: "1.05 [0.91–1.20]". */
const withInterval = (
  value: number | null,
  interval: { low: number | null; high: number | null } | null,
  digits: number,
) =>
  value === null || interval === null
    ? '—'
    : `${fixed(value, digits)} [${fixed(interval.low, digits)}–${fixed(interval.high, digits)}]`;

const COLUMNS: readonly { key: keyof RowJson; label: string; show?: (value: never, row: RowJson) => string }[] = [
  {
    key: 'schema_valid_rate',
    label: 'schema-valid rate (full schema, judged apart from the grammar)',
    show: (value: number | null) => percent(value),
  },
  { key: 'parse_errors', label: 'parse errors' },
  { key: 'schema_errors', label: 'schema errors' },
  { key: 'truncated', label: 'truncated' },
  { key: 'R', label: 'R' },
  { key: 'I', label: 'I' },
  { key: 'D', label: 'D' },
  { key: 'A', label: 'A' },
  { key: 'steps', label: 'steps' },
  { key: 'acceptance_histogram', label: 'histogram 0..L', show: (value: number[]) => value.join(' · ') },
  { key: 'bonus_tokens', label: 'bonus tokens' },
  { key: 'grammar_survival', label: 'D/R', show: (value: number | null) => percent(value) },
  { key: 'conditional_acceptance', label: 'A/D', show: (value: number | null) => percent(value) },
  { key: 'draft_yield', label: 'A/R', show: (value: number | null) => percent(value) },
  { key: 'mean_acceptance_length', label: 'mean acceptance length', show: (value: number | null) => fixed(value) },
  { key: 'draft_ms_per_step', label: 'draft ms/step', show: (value: number | null) => fixed(value) },
  { key: 'target_ms_per_step', label: 'target ms/step', show: (value: number | null) => fixed(value) },
  { key: 'mask_ms_per_step', label: 'mask ms/step', show: (value: number | null) => fixed(value) },
  {
    key: 'tokens_per_second',
    label: 'tokens/s (median [95% interval] over seeds)',
    show: (value: number | null, row) => withInterval(value, row.tokens_per_second_ci95, 1),
  },
  {
    key: 'speedup_over_free',
    label: 'schema on over schema off, tokens/s [95% interval] and verdict',
    show: (value: number | null, row) =>
      value === null
        ? '—'
        : `${withInterval(value, row.speedup_over_free_ci95, 2)}×${row.speedup_over_free_verdict === null ? '' : ` ${VERDICT_TEXT[row.speedup_over_free_verdict]}`}`,
  },
  {
    key: 'inter_token_latency_ms',
    label: 'inter-token latency ms (median)',
    show: (value: number | null) => fixed(value, 1),
  },
];

export function ScorecardView() {
  const params = useSpec((s) => s.params);
  const ready = useSpec((s) => s.engine.status === 'ready');
  const table = useSpec((s) => s.scorecardTable);
  const startScorecard = useSpec((s) => s.startScorecard);
  const cancelBench = useSpec((s) => s.cancelBench);
  const [presets, setPresets] = useState<SchemaPreset['id'][]>(['sentiment', 'person']);
  const [seeds, setSeeds] = useState(1);
  const running = table.status === 'running';
  const toggle = (id: SchemaPreset['id']) =>
    setPresets(presets.includes(id) ? presets.filter((kept) => kept !== id) : [...presets, id]);
  const start = () =>
    startScorecard({
      presets: SCHEMA_PRESETS.map((preset) => preset.id).filter((id) => presets.includes(id)),
      seeds,
      base: {
        method: params.method,
        K: params.K,
        L: params.L,
        temperature: params.temperature,
        maxTokens: params.maxTokens,
        drafting: params.drafting,
        seed: params.seed,
      },
    });
  const rows = table.rows.map(scorecardRowJson);
  return (
    <section className="scorecard" aria-label="Structured-output scorecard" data-testid="scorecard">
      <h2>Structured-output scorecard: each schema on and off</h2>
      <p>
        Runs {METHOD_LABELS[params.method]} at {describeK(params.method, params.K)}, L = {params.L}, T ={' '}
        {params.temperature}, up to {params.maxTokens} tokens (the settings above) on each chosen preset twice: with its
        schema enforced, and the same prompt with no schema. Validity is judged against the full schema either way.
      </p>
      <fieldset className="row">
        <legend>Schema families</legend>
        {SCHEMA_PRESETS.map((preset) => (
          <label key={preset.id} className="inline">
            <input type="checkbox" checked={presets.includes(preset.id)} onChange={() => toggle(preset.id)} />{' '}
            {preset.title}
          </label>
        ))}
        <label className="field inline" htmlFor="scorecard-seeds">
          <span>Seeds</span>
          <select id="scorecard-seeds" value={seeds} onChange={(event) => setSeeds(Number(event.target.value))}>
            {[1, 2, 3, 5, 10].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={start} disabled={!ready || running || presets.length === 0}>
          Run scorecard
        </button>
      </fieldset>
      {table.status !== 'idle' && (
        <JobProgress label="Scorecard" done={table.done} total={table.total} running={running} onCancel={cancelBench} />
      )}
      {table.error && (
        <p className="error" role="alert">
          {table.error}
        </p>
      )}
      {rows.length > 0 && (
        <>
          <div className="table-scroll">
            <table data-testid="scorecard-table">
              <caption>
                {rows[0]?.method} K={rows[0]?.K} L={rows[0]?.L} T={rows[0]?.temperature}, seeds {rows[0]?.seeds}
              </caption>
              <thead>
                <tr>
                  <th scope="col">schema family</th>
                  <th scope="col">constraint</th>
                  <th scope="col">completions</th>
                  {COLUMNS.map((column) => (
                    <th key={column.key} scope="col">
                      {column.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr
                    key={`${row.preset}-${row.constrained}`}
                    data-preset={row.preset}
                    data-constrained={row.constrained}
                  >
                    <th scope="row">{row.preset}</th>
                    <td>{row.constrained ? 'schema on' : 'schema off'}</td>
                    <td>{row.completions}</td>
                    {COLUMNS.map((column) => (
                      <td key={column.key} data-column={column.key}>
                        {column.show ? column.show(row[column.key] as never, row) : String(row[column.key])}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <ExportButtons name="speclab-scorecard" json={() => ({ rows })} csv={() => scorecardCsv(table.rows)} />
        </>
      )}
    </section>
  );
}

import { useEffect, useRef, useState } from 'react';
import { VLLM_NAMES, exportCounters, schemaValidRate } from '../core/metrics';
import { describeK, reportedK } from '../contract/runParams';
import { roomLinkOf, shareLinkOf } from './shareLink';
import { CounterList, countersEntries } from './benchParts';
import { download } from './download';
import { METHOD_LABELS, percent } from './format';
import { HelpButton } from './HowItWorks';
import type { HelpTopic } from '../store/store';
import { useSpec, useSpecStore } from './storeContext';
import { useShownRun } from './replayView';

/** One row per counter for the CSV: our name, vLLM's name where it has one, and the value. */
function countersCsv(exported: ReturnType<typeof exportCounters>, slice: Record<string, string | number>): string {
  const vllmName: Readonly<Record<string, string>> = VLLM_NAMES;
  const rows = [
    ['name', 'vllm_name', 'value'],
    ...Object.entries(slice).map(([key, value]) => [key, '', String(value)]),
  ];
  for (const [key, value] of Object.entries(exported.speclab)) {
    if (key === 'by_source') {
      // One row per source and count: by_source.grammar.accepted.
      for (const [source, counts] of Object.entries(exported.speclab.by_source))
        for (const [name, count] of Object.entries(counts))
          rows.push([`by_source.${source}.${name}`, '', String(count)]);
      continue;
    }
    rows.push([key, vllmName[key] ?? '', Array.isArray(value) ? value.join(' ') : String(value)]);
  }
  return `${rows.map((row) => row.map((cell) => (/[",\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell)).join(',')).join('\n')}\n`;
}

/** The part of "How it works" each counter's "?" opens; the rest open the counters' part. */
const COUNTER_TOPICS: Readonly<Record<string, HelpTopic>> = {
  steps: 'speculative',
  'mean-length': 'mean-length',
  histogram: 'histogram',
};

type ShareState = { kind: 'idle' } | { kind: 'copied'; room: boolean } | { kind: 'failed'; reason: string };

/**
 * Puts the share link in the address bar and on the clipboard, and says which of the two worked. While
 * presenting, the clipboard gets the room's link, the one the audience QR code holds (src/ui/AudienceQr.tsx).
 */
function ShareButton() {
  const params = useSpec((s) => s.params);
  const preset = useSpec((s) => s.preset);
  const store = useSpecStore();
  const [state, setState] = useState<ShareState>({ kind: 'idle' });
  const clearTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(clearTimer.current), []);
  const show = (next: ShareState) => {
    setState(next);
    clearTimeout(clearTimer.current);
    clearTimer.current = setTimeout(() => setState({ kind: 'idle' }), 6000);
  };
  const share = async () => {
    const state = { ...store.getState(), params, preset };
    const url = shareLinkOf(state);
    history.replaceState(null, '', url);
    const room = state.ui.presentation;
    try {
      if (!navigator.clipboard) throw new Error('this page has no clipboard access');
      await navigator.clipboard.writeText(room ? roomLinkOf(state) : url);
      show({ kind: 'copied', room });
    } catch (error) {
      show({ kind: 'failed', reason: (error as Error).message });
    }
  };
  return (
    <>
      <button type="button" onClick={() => void share()} data-testid="share">
        Share link
      </button>
      <span role="status" className="share-feedback" data-testid="share-feedback">
        {state.kind === 'copied' &&
          (state.room
            ? 'The audience’s link (the QR code’s, ordinary layout) copied to the clipboard.'
            : 'Link copied to the clipboard.')}
        {state.kind === 'failed' && `Could not copy (${state.reason}); the link is in the address bar.`}
      </span>
    </>
  );
}

export function CounterPanel() {
  const run = useSpec((s) => s.run);
  // During a replay, the counters before the replayed step, and with it from its emission (src/ui/replayView.ts).
  const { counters } = useShownRun(
    run.steps,
    run.counters,
    useSpec((s) => s.ui.replay),
  );
  const formParams = useSpec((s) => s.params);
  const preset = useSpec((s) => s.preset);
  const scorecard = useSpec((s) => s.scorecard);
  // Counters belong to the run that made them: its parameters, not the form's, head them (the form may
  // already hold the next run's K and L).
  const params = run.status === 'idle' ? formParams : run.params;
  const slice = {
    method: params.method,
    schema: preset,
    K: reportedK(params.method, params.K),
    L: params.L,
    temperature: params.temperature,
    drafting: params.drafting,
    drafter: params.drafter ?? 'model',
    seed: params.seed,
  };
  const exported = () => exportCounters(counters);
  return (
    <section className="counters" aria-labelledby="counter-heading">
      <div className="section-head">
        <h2 id="counter-heading">Counters</h2>
        <p className="slice" data-testid="counter-slice">
          {METHOD_LABELS[params.method]} · schema {preset} · {describeK(params.method, params.K)} · L = {params.L} · T ={' '}
          {params.temperature}
        </p>
        <span className="chart-exports" data-snapshot="omit">
          <button
            type="button"
            aria-label="Counters JSON"
            onClick={() =>
              download(
                'speclab-counters.json',
                new Blob([JSON.stringify({ slice, ...exported() }, null, 2)], { type: 'application/json' }),
              )
            }
          >
            JSON
          </button>
          <button
            type="button"
            aria-label="Counters CSV"
            onClick={() =>
              download('speclab-counters.csv', new Blob([countersCsv(exported(), slice)], { type: 'text/csv' }))
            }
          >
            CSV
          </button>
          <ShareButton />
        </span>
      </div>
      <CounterList
        testId="counters"
        entries={[
          ...countersEntries(counters),
          [
            'schema-valid completions',
            `${percent(schemaValidRate(scorecard))} of ${scorecard.completions} (truncated ${scorecard.truncated}, dead ends ${scorecard.deadEnds})`,
            'scorecard',
            'of all completions this session',
          ],
        ]}
        help={(key, label) => <HelpButton topic={COUNTER_TOPICS[key ?? ''] ?? 'counters'} about={label} />}
      />
    </section>
  );
}

import { choiceSummary, type CellExplanation, type ExplainedStep } from '../core/explain';
import type { StepRecord } from '../contract/stepRecord';
import { useEffect, useRef } from 'react';
import { fixed, prob } from './format';
import { HelpButton } from './HowItWorks';
import { SOURCE_MARKS } from './howItWorksText';
import type { PlaybackView } from './playback';

const STATUS_LABEL: Readonly<Record<CellExplanation['status'], string>> = {
  accepted: 'accepted',
  rejected: 'rejected',
  'not-kept': 'not kept (the block stopped before it)',
  'not-examined': 'not examined',
  invalid: 'not allowed by the schema',
};

/** How much of a cell a playback frame reveals: the token while drafting, then the grammar, the scores, the decision. */
function revealed(view: PlaybackView | null, cell: CellExplanation) {
  if (!view) return { grammar: true, scores: true, decision: true };
  const phase = view.phase;
  const decided = phase === 'emission' || (cell.decision !== null && cell.decision <= view.revealedDecision);
  return { grammar: phase !== 'drafting', scores: phase !== 'drafting' && phase !== 'grammar', decision: decided };
}

/** The K×L grid, each cell with the test it faced (or why it faced none). */
export function DecisionGrid(props: {
  step: StepRecord;
  explained: ExplainedStep;
  text: (token: number) => string;
  view: PlaybackView | null;
}) {
  const { step, explained, text, view } = props;
  const width = Math.max(...step.drafts.map((draft) => draft.length));
  // During a replay, which draft was chosen is an outcome: it shows at the emission, not before.
  const outcome = !view || view.phase === 'emission';
  const scroller = useRef<HTMLDivElement>(null);
  const current = view?.cell ? `${view.cell.draft},${view.cell.position}` : null;
  const revealedDecision = view?.revealedDecision;
  useEffect(() => {
    // The replay's highlighted cell stays in view however wide the grid is, and again when its answer makes it taller.
    if (current) scroller.current?.querySelector('td.current')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [current, revealedDecision]);
  return (
    // Focusable, so that a keyboard can scroll it where it scrolls (the compact replay layout).
    <div
      className="grid-scroll"
      ref={scroller}
      tabIndex={0}
      role="region"
      aria-label="Every decision, with its numbers"
    >
      <table className="draft-grid" data-testid="decision-grid">
        <caption>
          {step.drafts.length} draft{step.drafts.length > 1 ? 's' : ''}
          {outcome ? `: ${choiceSummary(explained.cells, step.chosen, step.accepted)}` : ''}. Each cell: token, q =
          draft probability, p = masked target probability, and the test the verifier made, with its uniform u.
        </caption>
        <thead>
          <tr>
            <th scope="col">draft</th>
            {Array.from({ length: width }, (_, j) => (
              <th scope="col" key={j}>
                position {j + 1}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {step.drafts.map((draft, k) => (
            <tr key={k} className={outcome && k === step.chosen ? 'chosen' : undefined}>
              <th scope="row">
                {k + 1}
                {outcome && k === step.chosen ? ' (chosen)' : ''}
              </th>
              {draft.map((token, j) => {
                const cell = explained.cells[k]?.[j];
                if (!cell) return <td key={j} />;
                const show = revealed(view, cell);
                const invalid = show.grammar && j >= (step.validLengths[k] ?? 0);
                const status = show.decision ? cell.status : invalid ? 'invalid' : 'pending';
                const current = view?.cell?.draft === k && view.cell.position === j;
                const source = step.draftSources[k]?.[j];
                const mark = source === undefined || source === 'model' ? null : SOURCE_MARKS[source];
                return (
                  <td
                    key={j}
                    className={`cell ${status}${current ? ' current' : ''}`}
                    data-cell={`${k},${j}`}
                    data-token={token}
                    data-status={status}
                    data-source={source}
                    data-kept-by-block={show.decision && cell.keptByBlock ? true : undefined}
                  >
                    {mark && (
                      <span className="source-mark" role="img" aria-label={mark.label} title={mark.label}>
                        {mark.symbol}{' '}
                      </span>
                    )}
                    <code>{text(token)}</code>
                    <small>
                      q {prob(step.draftProbs[k]?.[j] ?? null)}
                      {show.scores ? ` · p ${prob(step.targetProbs[k]?.[j] ?? null)}` : ''}
                    </small>
                    {show.decision ? (
                      <small className="decision-line" data-examined={cell.examined}>
                        {cell.examined && <strong>{STATUS_LABEL[cell.status]}: </strong>}
                        {cell.line}
                      </small>
                    ) : invalid ? (
                      <small className="decision-line">
                        {j === step.validLengths[k] ? 'not allowed by the schema here' : 'after an invalid token'}
                      </small>
                    ) : null}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The decisions in the order the verifier made them; the playback's current one is marked. */
export function DecisionList(props: { explained: ExplainedStep; view: PlaybackView | null }) {
  const { explained, view } = props;
  const shown = view
    ? explained.lines.filter((line) => view.phase === 'emission' || line.decision <= view.revealedDecision)
    : explained.lines;
  return (
    <div className="decision-list">
      <h3>
        Verification, in order <HelpButton topic="verification" />
      </h3>
      {shown.length === 0 ? (
        <p>Nothing verified yet.</p>
      ) : (
        <ol data-testid="decision-list">
          {shown.map((line) => (
            <li
              key={line.decision}
              className={
                view?.revealedDecision === line.decision && view.phase === 'verification' ? 'current' : undefined
              }
            >
              {line.where ? `${line.where}: ` : ''}
              {line.text}
            </li>
          ))}
        </ol>
      )}
      {explained.finalLine && (!view || view.phase === 'emission') && (
        <p className="final-line" data-testid="final-line">
          Final token: {explained.finalLine}
        </p>
      )}
    </div>
  );
}

/** GBV's scalars and their formulas, with the position where the block stopped; each row names the token it tested. */
export function BlockTrace(props: {
  trace: NonNullable<StepRecord['trace']>;
  chosen: number;
  /** The chosen draft's tokens (up to its stop token: the block's positions past it are the verifier's padding). */
  draft: readonly number[];
  text: (token: number) => string;
}) {
  const { trace, draft, text } = props;
  const value = (x: number | undefined) => fixed(x === undefined || Number.isNaN(x) ? null : x, 4);
  const n = trace.weights.length - 1;
  const padding = Math.max(0, trace.start + n - draft.length);
  const tested = (i: number) => {
    if (i === 0) return 'before the block';
    const position = trace.start + i - 1;
    const token = draft[position];
    return token === undefined ? `position ${position + 1}: padding` : `position ${position + 1}: “${text(token)}”`;
  };
  return (
    <div className="block-trace">
      <table className="trace" data-testid="block-trace">
        <caption>
          Last GBV block: draft {props.chosen + 1} from position {trace.start + 1}, n = {n} position{n === 1 ? '' : 's'}
          {padding > 0
            ? ` (${n - padding} drafted token${n - padding === 1 ? '' : 's'}, then ${padding} of padding: the draft ended at “${text(draft.at(-1) as number)}”)`
            : ''}
          . — where the rule did not need the value.
        </caption>
        <thead>
          <tr>
            {['i', 'token', 'w_i', 'Z_i', 'h_i'].map((name) => (
              <th scope="col" key={name}>
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {trace.weights.map((weight, i) => (
            <tr key={i} data-padding={i > 0 && trace.start + i - 1 >= draft.length}>
              <td>{i}</td>
              <td>{tested(i)}</td>
              <td>{value(weight)}</td>
              <td>{value(trace.masses[i])}</td>
              <td>{value(trace.stops[i])}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <dl className="formulas" aria-label="GBV formulas">
        <dt>w_i</dt>
        <dd>min(1, w_(i−1) · p_i/q_i), w_0 = 1: how much of the block’s first i tokens the target still backs</dd>
        <dt>Z_i</dt>
        <dd>Σ max(0, w_i·p_(i+1) − q_(i+1)): the residual mass left if the block stops after i tokens</dd>
        <dt>h_i</dt>
        <dd>
          Z_i / (Z_i + 1 − w_i) for i &lt; n, h_n = w_n: the chance to stop at i given that no later position was kept
        </dd>
        <dt>τ</dt>
        <dd>scan i = n, n−1, …, 1 and stop at the first u &lt; h_i; τ = 0 if none. The lines above give each u.</dd>
      </dl>
    </div>
  );
}

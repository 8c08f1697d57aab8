import { explainStep } from '../core/explain';
import type { EmittedToken, StepRecord } from '../contract/stepRecord';
import { fixed, visibleToken } from './format';

export interface HoveredToken {
  step: number;
  position: number;
  /** Where the token is on screen, for placing the card beside it. */
  left: number;
  top: number;
  bottom: number;
}

const ORIGIN_LABEL: Readonly<Record<EmittedToken['origin'], string>> = {
  draft: 'accepted draft token',
  correction: 'correction token (from the residual)',
  bonus: 'bonus token (every draft token accepted)',
  target: 'target sample (autoregressive)',
};

/** The decision behind an emitted token, from the step's own trace. */
function decisionFor(
  step: StepRecord,
  token: EmittedToken,
  position: number,
  text: (token: number) => string,
): string[] {
  if (token.origin === 'target' || !step.decisions) return [];
  const explained = explainStep(step.decisions, { drafts: step.drafts, validLengths: step.validLengths }, text);
  if (token.origin === 'draft') {
    // The test that accepted this token may have been made on another draft with the same prefix (SpecTr).
    const own = explained.cells[step.chosen]?.[position];
    if (own?.examined) return [own.line];
    const tester = step.drafts.findIndex(
      (draft, k) =>
        draft[position] === token.token &&
        explained.cells[k]?.[position]?.examined &&
        explained.cells[k]?.[position]?.status === 'accepted',
    );
    const tested = explained.cells[tester]?.[position];
    return tested ? [`tested on draft ${tester + 1}: ${tested.line}`] : [own?.line ?? ''];
  }
  const lines: string[] = [];
  const rejected = explained.cells[step.chosen]?.[step.accepted];
  const rejectedToken = step.drafts[step.chosen]?.[step.accepted];
  if (token.origin === 'correction' && rejected && rejectedToken !== undefined)
    lines.push(`draft ${step.chosen + 1}’s “${text(rejectedToken)}” here: ${rejected.line}`);
  if (explained.finalLine) lines.push(explained.finalLine);
  return lines;
}

/** The token stream's hover card: the token's text, origin, p, q and the decision line, in large type. */
export function TokenCard(props: {
  hovered: HoveredToken;
  steps: readonly StepRecord[];
  tokenTexts: readonly string[] | undefined;
}) {
  const { hovered, steps, tokenTexts } = props;
  const step = steps.find((candidate) => candidate.index === hovered.step);
  const token = step?.emitted[hovered.position];
  if (!step || !token) return null;
  const text = (id: number) => visibleToken(tokenTexts?.[id] ?? `#${id}`);
  const below = hovered.bottom + 8;
  const style =
    below + 220 < window.innerHeight
      ? { left: Math.max(8, Math.min(hovered.left, window.innerWidth - 520)), top: below }
      : {
          left: Math.max(8, Math.min(hovered.left, window.innerWidth - 520)),
          bottom: window.innerHeight - hovered.top + 8,
        };
  return (
    <div className="token-card" role="tooltip" id="token-card" data-testid="token-card" style={style}>
      <code>{text(token.token)}</code>
      <dl>
        <dt>step</dt>
        <dd>
          {step.index + 1}, token {hovered.position + 1} of {step.emitted.length}
        </dd>
        <dt>origin</dt>
        <dd>{ORIGIN_LABEL[token.origin]}</dd>
        <dt>p (target)</dt>
        <dd>{fixed(token.targetProb, 4)}</dd>
        {token.draftProb !== undefined && (
          <>
            <dt>q (draft)</dt>
            <dd>{fixed(token.draftProb, 4)}</dd>
          </>
        )}
        {decisionFor(step, token, hovered.position, text).map((line, i) => (
          <div key={i} style={{ display: 'contents' }}>
            <dt>{i === 0 ? 'decision' : ''}</dt>
            <dd>{line}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

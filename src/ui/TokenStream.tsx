import { memo, useDeferredValue, useMemo, useState } from 'react';
import type { StepRecord } from '../contract/stepRecord';
import type { SpecActions } from '../store/store';
import { visibleToken } from './format';
import { TokenCard, type HoveredToken } from './TokenCard';
import { useSpec } from './storeContext';
import { useShownRun } from './replayView';

function placed(step: number, position: number, element: HTMLElement): HoveredToken {
  const box = element.getBoundingClientRect();
  return { step, position, left: box.left, top: box.top, bottom: box.bottom };
}

export function TokenLegend() {
  return (
    <ul className="legend" aria-label="Token colours">
      <li className="token origin-draft">accepted draft</li>
      <li className="token origin-correction">correction</li>
      <li className="token origin-bonus">bonus</li>
      <li className="token origin-target">target (AR)</li>
      <li className="token invalid">invalidated by the grammar</li>
    </ul>
  );
}

/**
 * The tokens the grammar invalidated in one step, for every draft: the chosen draft's where they fell, and
 * each unchosen draft's marked as such, so that I in the counters can be found token by token.
 */
function InvalidDraftTokens({ step, text }: { step: StepRecord; text: (token: number) => string }) {
  return step.drafts.map((draft, k) => {
    const valid = step.validLengths[k] ?? draft.length;
    if (valid >= draft.length) return null;
    const chosen = k === step.chosen;
    const where = chosen ? `draft ${k + 1} (chosen)` : `draft ${k + 1}, which was not chosen`;
    return (
      <span key={k} className={`invalid-draft${chosen ? '' : ' unchosen'}`} data-draft={k} data-chosen={chosen}>
        {!chosen && <span className="invalid-label">draft {k + 1}, not chosen:</span>}
        {draft.slice(valid).map((token, i) => (
          <s
            key={i}
            className="token invalid"
            title={`step ${step.index + 1}: ${where} left the grammar at position ${valid + 1}, so that token and the rest of the draft were invalidated`}
          >
            {visibleToken(text(token))}
          </s>
        ))}
      </span>
    );
  });
}

/** Memoised on the deferred steps, so that store updates in between do not redraw every token. */
const Tokens = memo(function Tokens(props: {
  steps: readonly StepRecord[];
  tokenTexts: readonly string[] | undefined;
  showInvalid: boolean;
  setUi: SpecActions['setUi'];
  text: string | undefined;
  onHover: (hovered: HoveredToken | null) => void;
}) {
  const { steps, tokenTexts, showInvalid, setUi, onHover } = props;
  const text = (token: number) => tokenTexts?.[token] ?? `#${token}`;
  return (
    <p className="tokens" data-testid="token-stream" data-text={props.text}>
      {steps.map((step) => (
        <span key={step.index} className="step-group" data-step={step.index}>
          {step.emitted.map((token, position) => (
            <span
              key={position}
              className={`token origin-${token.origin}`}
              data-position={position}
              aria-describedby="token-card"
              tabIndex={0}
              onMouseEnter={(event) => onHover(placed(step.index, position, event.currentTarget))}
              onFocus={(event) => onHover(placed(step.index, position, event.currentTarget))}
              onMouseLeave={() => onHover(null)}
              onBlur={() => onHover(null)}
              onClick={() => setUi({ selectedStep: step.index })}
              onKeyDown={(event) => {
                if (event.key === 'Enter') setUi({ selectedStep: step.index });
              }}
            >
              {visibleToken(text(token.token))}
            </span>
          ))}
          {showInvalid && <InvalidDraftTokens step={step} text={text} />}
        </span>
      ))}
    </p>
  );
});

const NO_STEPS: readonly StepRecord[] = [];

export function TokenStream() {
  // Deferred like the charts: the stream redraws when the page is idle, not in the worker's way. Until the
  // deferred pass (which renders the charts and the inspector too) first commits, the run's first step is drawn
  // at once, as the worker sent it ahead of its batch, the same array each time so that the stream is not
  // redrawn per batch: the room is waiting on the first tokens (bench:load's "run usable").
  const liveSteps = useSpec((s) => s.run.steps);
  const deferredSteps = useDeferredValue(liveSteps);
  const firstStep = useSpec((s) => s.run.firstStep) ?? liveSteps[0];
  const firstSteps = useMemo(() => (firstStep ? [firstStep] : NO_STEPS), [firstStep]);
  const allSteps = deferredSteps.length === 0 ? firstSteps : deferredSteps;
  const counters = useSpec((s) => s.run.counters);
  // During a replay, the output before the replayed step; its tokens join at the emission frame (src/ui/replayView.ts).
  const { steps, replaying } = useShownRun(
    allSteps,
    counters,
    useSpec((s) => s.ui.replay),
  );
  const tokenTexts = useSpec((s) => s.engine.info?.tokenTexts);
  const showInvalid = useSpec((s) => s.ui.showInvalid);
  const setUi = useSpec((s) => s.setUi);
  const runReport = useSpec((s) => s.run.report);
  const report = replaying ? null : runReport;
  const [hovered, setHovered] = useState<HoveredToken | null>(null);
  return (
    <section className="stream" aria-labelledby="stream-heading">
      <div className="section-head">
        <h2 id="stream-heading">Output</h2>
        <TokenLegend />
        <label className="inline">
          <input
            type="checkbox"
            checked={showInvalid}
            onChange={(event) => setUi({ showInvalid: event.target.checked })}
          />{' '}
          show invalidated draft tokens
        </label>
      </div>
      <Tokens
        steps={steps}
        tokenTexts={tokenTexts}
        showInvalid={showInvalid}
        setUi={setUi}
        text={report?.text}
        onHover={setHovered}
      />
      {hovered && <TokenCard hovered={hovered} steps={steps} tokenTexts={tokenTexts} />}
      {report && (
        <p
          className="verdict"
          data-testid="verdict"
          data-tokens-per-second={report.tokensPerSecond}
          data-generation-ms={report.generationMs}
          data-wall-ms={report.wallMs}
        >
          {report.verdict === null
            ? `Free text, ${report.tokens.length} tokens (${report.ending}).`
            : report.verdict.kind === 'valid'
              ? `Schema-valid JSON (checked against the schema, independently of the grammar), ${report.tokens.length} tokens in ${report.steps} target forwards, ${report.tokensPerSecond.toFixed(1)} tokens/s (generation; the inspector's analyses took ${report.timings.analysis.toFixed(0)} ms more).`
              : `${report.verdict.kind}: ${report.verdict.reason}`}
          {report.unenforced.length > 0 &&
            ` Not enforced by the grammar (ajv still checks): ${report.unenforced.join(', ')}.`}
        </p>
      )}
    </section>
  );
}

import { memo, useDeferredValue } from 'react';
import type { EmittedToken, StepRecord } from '../contract/stepRecord';
import type { SpecActions } from '../store/store';
import { fixed, visibleToken } from './format';
import { useSpec } from './storeContext';

const ORIGIN_LABEL: Readonly<Record<EmittedToken['origin'], string>> = {
  draft: 'accepted draft token',
  correction: 'correction token (from the residual)',
  bonus: 'bonus token (every draft token accepted)',
  target: 'target sample (autoregressive)',
};

function explain(step: StepRecord, token: EmittedToken, position: number): string {
  const lines = [`step ${step.index + 1} · ${ORIGIN_LABEL[token.origin]}`, `target p = ${fixed(token.targetProb, 4)}`];
  if (token.draftProb !== undefined) lines.push(`draft q = ${fixed(token.draftProb, 4)}`, `accepted: position ${position + 1} of draft ${step.chosen + 1}`);
  if (token.origin === 'correction') {
    const rejected = step.drafts[step.chosen]?.[step.accepted];
    const valid = step.validLengths[step.chosen] ?? 0;
    lines.push(
      step.accepted >= valid
        ? `draft ${step.chosen + 1} token ${step.accepted + 1} was invalidated by the grammar (target p = 0)`
        : `draft ${step.chosen + 1} token ${step.accepted + 1} (id ${rejected}) was rejected by the verifier`,
    );
  }
  return lines.join('\n');
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
          <s key={i} className="token invalid" title={`step ${step.index + 1}: ${where} left the grammar at position ${valid + 1}, so that token and the rest of the draft were invalidated`}>
            {visibleToken(text(token))}
          </s>
        ))}
      </span>
    );
  });
}

/** Memoised on the deferred steps, so that store updates in between do not redraw every token. */
const Tokens = memo(function Tokens(props: { steps: readonly StepRecord[]; tokenTexts: readonly string[] | undefined; showInvalid: boolean; setUi: SpecActions['setUi']; text: string | undefined }) {
  const { steps, tokenTexts, showInvalid, setUi } = props;
  const text = (token: number) => tokenTexts?.[token] ?? `#${token}`;
  return (
    <p className="tokens" data-testid="token-stream" data-text={props.text}>
      {steps.map((step) => (
        <span key={step.index} className="step-group" data-step={step.index}>
          {step.emitted.map((token, position) => (
            <span
              key={position}
              className={`token origin-${token.origin}`}
              title={explain(step, token, position)}
              tabIndex={0}
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

export function TokenStream() {
  // Deferred like the charts: the stream redraws when the page is idle, not in the worker's way.
  const steps = useDeferredValue(useSpec((s) => s.run.steps));
  const tokenTexts = useSpec((s) => s.engine.info?.tokenTexts);
  const showInvalid = useSpec((s) => s.ui.showInvalid);
  const setUi = useSpec((s) => s.setUi);
  const report = useSpec((s) => s.run.report);
  return (
    <section className="stream" aria-labelledby="stream-heading">
      <div className="section-head">
        <h2 id="stream-heading">Output</h2>
        <TokenLegend />
        <label className="inline">
          <input type="checkbox" checked={showInvalid} onChange={(event) => setUi({ showInvalid: event.target.checked })} /> show invalidated draft tokens
        </label>
      </div>
      <Tokens steps={steps} tokenTexts={tokenTexts} showInvalid={showInvalid} setUi={setUi} text={report?.text} />
      {report && (
        <p className="verdict" data-testid="verdict" data-tokens-per-second={report.tokensPerSecond}>
          {report.verdict === null
            ? `Free text, ${report.tokens.length} tokens (${report.ending}).`
            : report.verdict.kind === 'valid'
              ? `Schema-valid JSON (checked against the schema, independently of the grammar), ${report.tokens.length} tokens in ${report.steps} target forwards, ${report.tokensPerSecond.toFixed(1)} tokens/s (generation; the inspector's analyses took ${report.timings.analysis.toFixed(0)} ms more).`
              : `${report.verdict.kind}: ${report.verdict.reason}`}
          {report.unenforced.length > 0 && ` Not enforced by the grammar (ajv still checks): ${report.unenforced.join(', ')}.`}
        </p>
      )}
    </section>
  );
}

import { useDeferredValue } from 'react';
import type { DistributionSummary } from '../core/sampling';
import type { EmittedToken } from '../contract/stepRecord';
import { FirstPositionOptimum } from './FirstPositionOptimum';
import { fixed, visibleToken } from './format';
import { useSpec } from './storeContext';

/** The law the final token was drawn from: the residual after a rejection, the target's row after a full block. */
function FinalLaw(props: { law: DistributionSummary; origin: EmittedToken['origin']; drawn: number; text: (token: number) => string }) {
  const { law, origin, drawn, text } = props;
  const from = origin === 'correction' ? 'the normalised residual (the target’s mass the drafts did not cover)' : 'the masked target’s bonus row';
  return (
    <table className="final-law" data-testid="final-law">
      <caption>
        The {origin} token was drawn from {from}: {law.support} token{law.support === 1 ? '' : 's'} possible; the {law.top.length} most likely:
      </caption>
      <thead>
        <tr>
          <th scope="col">token</th>
          <th scope="col">probability</th>
        </tr>
      </thead>
      <tbody>
        {law.top.map((entry) => (
          <tr key={entry.token} className={entry.token === drawn ? 'drawn' : undefined}>
            <td>
              <code>{text(entry.token)}</code>
              {entry.token === drawn ? ' (drawn)' : ''}
            </td>
            <td>{fixed(entry.prob, 4)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function StepInspector() {
  const steps = useDeferredValue(useSpec((s) => s.run.steps));
  const selected = useSpec((s) => s.ui.selectedStep);
  const setUi = useSpec((s) => s.setUi);
  const tokenTexts = useSpec((s) => s.engine.info?.tokenTexts);
  if (steps.length === 0) {
    return (
      <section className="inspector" aria-labelledby="inspector-heading">
        <h2 id="inspector-heading">Step inspector</h2>
        <p>Run or Step to see each verification step: every draft, its draft and target probabilities, and what was accepted.</p>
      </section>
    );
  }
  const index = Math.min(selected ?? steps.length - 1, steps.length - 1);
  const step = steps[index];
  if (!step) return null;
  const text = (token: number) => visibleToken(tokenTexts?.[token] ?? `#${token}`);
  const last = step.emitted.at(-1);
  return (
    <section className="inspector" aria-labelledby="inspector-heading" data-testid="inspector">
      <div className="section-head">
        <h2 id="inspector-heading">Step inspector</h2>
        <label htmlFor="step-scrub" className="inline">
          Step {index + 1} of {steps.length}
          <input id="step-scrub" type="range" min={0} max={steps.length - 1} value={index} onChange={(event) => setUi({ selectedStep: Number(event.target.value) })} />
        </label>
      </div>
      {step.drafts.length === 0 ? (
        <p>Autoregressive step: the target sampled {last ? `“${text(last.token)}” (p = ${fixed(last.targetProb, 4)})` : 'nothing'}.</p>
      ) : (
        <table className="draft-grid">
          <caption>
            {step.drafts.length} draft{step.drafts.length > 1 ? 's' : ''}: draft {step.chosen + 1} was chosen, {step.accepted} of its tokens accepted. Each cell: token, q = draft probability, p = masked target probability.
          </caption>
          <thead>
            <tr>
              <th scope="col">draft</th>
              {Array.from({ length: Math.max(...step.drafts.map((d) => d.length)) }, (_, j) => (
                <th scope="col" key={j}>
                  position {j + 1}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {step.drafts.map((draft, k) => (
              <tr key={k} className={k === step.chosen ? 'chosen' : undefined}>
                <th scope="row">
                  {k + 1}
                  {k === step.chosen ? ' (chosen)' : ''}
                </th>
                {draft.map((token, j) => {
                  const invalid = j >= (step.validLengths[k] ?? 0);
                  const accepted = k === step.chosen && j < step.accepted;
                  const state = invalid ? 'invalid' : accepted ? 'accepted' : 'not accepted';
                  return (
                    <td key={j} className={`cell ${invalid ? 'invalid' : accepted ? 'accepted' : 'rejected'}`} title={state}>
                      <code>{text(token)}</code>
                      <small>
                        q {fixed(step.draftProbs[k]?.[j] ?? null, 3)} · p {fixed(step.targetProbs[k]?.[j] ?? null, 3)}
                      </small>
                      <small>{state}</small>
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {last && step.drafts.length > 0 && (
        <p>
          Final token: <code>{text(last.token)}</code> ({last.origin}, target p = {fixed(last.targetProb, 4)}).
        </p>
      )}
      {last && step.finalLaw && <FinalLaw law={step.finalLaw} origin={last.origin} drawn={last.token} text={text} />}
      {step.trace && (
        <table className="trace">
          <caption>GBV block from draft position {step.trace.start + 1}: w capped weight, Z residual mass, h stop probability (— where the rule did not need it)</caption>
          <thead>
            <tr>
              <th scope="col">i</th>
              <th scope="col">w_i</th>
              <th scope="col">Z_i</th>
              <th scope="col">h_i</th>
            </tr>
          </thead>
          <tbody>
            {step.trace.weights.map((weight, i) => (
              <tr key={i}>
                <td>{i}</td>
                <td>{fixed(Number.isNaN(weight) ? null : weight, 4)}</td>
                <td>{fixed(Number.isNaN(step.trace?.masses[i] ?? NaN) ? null : (step.trace?.masses[i] as number), 4)}</td>
                <td>{fixed(Number.isNaN(step.trace?.stops[i] ?? NaN) ? null : (step.trace?.stops[i] as number), 4)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <FirstPositionOptimum firstPosition={step.firstPosition} drafts={step.drafts.length} />
      {step.verifiedOn && (
        <p data-testid="verified-on">
          {step.verifiedOn === 'cpu'
            ? 'Verified on the CPU twin.'
            : step.verifiedOn === 'cpu-no-kernel'
              ? 'Verified on the CPU twin: this method has no WGSL kernel, so the GPU path hands it to the twin.'
            : step.verifiedOn === 'gpu-in-place'
              ? 'Verified by the WGSL kernels, reading the target’s logits in place in onnxruntime’s GPU buffer.'
              : 'Verified by the WGSL kernels, on logits written to the GPU.'}
        </p>
      )}
      <p className="timings">
        Timings (ms): draft {fixed(step.timings.draft, 1)} · mask {fixed(step.timings.mask, 1)} · target {fixed(step.timings.target, 1)} · verify {fixed(step.timings.verify, 1)} · overhead{' '}
        {fixed(step.timings.overhead, 1)} · analyses for this inspector {fixed(step.timings.analysis, 1)}
      </p>
    </section>
  );
}

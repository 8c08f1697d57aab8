import { useCallback, useDeferredValue } from 'react';
import type { DistributionSummary } from '../core/sampling';
import type { EmittedToken, TargetScoring } from '../contract/stepRecord';
import { ExplainedStep } from './ExplainedStep';
import { FirstPositionOptimum } from './FirstPositionOptimum';
import { fixed, visibleToken } from './format';
import { useSpec } from './storeContext';

/** The law the final token was drawn from: the residual after a rejection, the target's row after a full block. */
function FinalLaw(props: {
  law: DistributionSummary;
  origin: EmittedToken['origin'];
  drawn: number;
  text: (token: number) => string;
}) {
  const { law, origin, drawn, text } = props;
  const from =
    origin === 'correction'
      ? 'the normalised residual (the target’s mass the drafts did not cover)'
      : 'the masked target’s bonus row';
  return (
    <table className="final-law" data-testid="final-law">
      <caption>
        The {origin} token was drawn from {from}: {law.support} token{law.support === 1 ? '' : 's'} possible; the{' '}
        {law.top.length} most likely:
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
            <td>{entry.prob >= 1e-4 ? fixed(entry.prob, 4) : entry.prob.toExponential(1)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** How many positions the target's forward ran, on which path, against what the other path costs. */
export function ScoringLine(props: { scoring: TargetScoring; drafts: number }) {
  const { path, positions, batchedPositions, reason } = props.scoring;
  const plural = (n: number) => `${n} position${n === 1 ? '' : 's'}`;
  return (
    <p data-testid="scoring" data-path={path}>
      {path === 'tree'
        ? `Target scored ${plural(positions)} in one tree pass (batched: ${batchedPositions}).`
        : `Target scored ${plural(positions)} in ${props.drafts} batched row${props.drafts === 1 ? '' : 's'}${reason ? `: ${reason}` : ''}.`}
    </p>
  );
}

export function StepInspector() {
  const steps = useDeferredValue(useSpec((s) => s.run.steps));
  const selected = useSpec((s) => s.ui.selectedStep);
  const setUi = useSpec((s) => s.setUi);
  const tokenTexts = useSpec((s) => s.engine.info?.tokenTexts);
  // Stable, so that a step's explanation is computed once, not on every redraw.
  const text = useCallback((token: number) => visibleToken(tokenTexts?.[token] ?? `#${token}`), [tokenTexts]);
  if (steps.length === 0) {
    return (
      <section className="inspector" aria-labelledby="inspector-heading">
        <h2 id="inspector-heading">Step inspector</h2>
        <p>
          Run or Step to see each verification step: every draft, its draft and target probabilities, and what was
          accepted.
        </p>
      </section>
    );
  }
  const index = Math.min(selected ?? steps.length - 1, steps.length - 1);
  const step = steps[index];
  if (!step) return null;
  const last = step.emitted.at(-1);
  return (
    <section className="inspector" aria-labelledby="inspector-heading" data-testid="inspector">
      <div className="section-head">
        <h2 id="inspector-heading">Step inspector</h2>
        <label htmlFor="step-scrub" className="inline">
          Step {index + 1} of {steps.length}
          <input
            id="step-scrub"
            type="range"
            min={0}
            max={steps.length - 1}
            value={index}
            onChange={(event) => setUi({ selectedStep: Number(event.target.value) })}
          />
        </label>
      </div>
      {step.drafts.length === 0 ? (
        <p>
          Autoregressive step: the target sampled{' '}
          {last ? `“${text(last.token)}” (p = ${fixed(last.targetProb, 4)})` : 'nothing'}.
        </p>
      ) : (
        <ExplainedStep
          key={index}
          step={step}
          text={text}
          outcome={
            <>
              {last && (
                <p>
                  Final token: <code>{text(last.token)}</code> ({last.origin}, target p = {fixed(last.targetProb, 4)}).
                </p>
              )}
              {last && step.finalLaw && (
                <FinalLaw law={step.finalLaw} origin={last.origin} drawn={last.token} text={text} />
              )}
              <FirstPositionOptimum firstPosition={step.firstPosition} drafts={step.drafts.length} />
            </>
          }
        />
      )}
      {step.scoring && <ScoringLine scoring={step.scoring} drafts={step.drafts.length} />}
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
        Timings (ms): draft {fixed(step.timings.draft, 1)} · mask {fixed(step.timings.mask, 1)} · target{' '}
        {fixed(step.timings.target, 1)} · verify {fixed(step.timings.verify, 1)} · kv cache {fixed(step.timings.kv, 1)}{' '}
        · overhead {fixed(step.timings.overhead, 1)} · analyses for this inspector {fixed(step.timings.analysis, 1)}
      </p>
    </section>
  );
}

import { LIMITS } from '../contract/limits';
import { DECODE_METHODS, type DecodeMethod } from '../contract/runParams';
import { SCHEMA_PRESETS } from '../grammar/presets';
import type { PresetChoice } from '../store/shareUrl';
import { METHOD_LABELS } from './format';
import { ModelPicker } from './ModelPicker';
import { NextRunNotice } from './NextRunNotice';
import { useShallow } from 'zustand/react/shallow';
import { useSpec } from './storeContext';

function NumberField(props: { label: string; id: string; value: number; min: number; max: number; step?: number; onChange: (value: number) => void }) {
  const { label, id, value, min, max, step = 1, onChange } = props;
  return (
    <label htmlFor={id} className="field">
      <span>{label}</span>
      <input
        id={id}
        type="number"
        value={value}
        min={min}
        max={max}
        step={step}
        onChange={(event) => {
          const next = Number(event.target.value);
          if (Number.isFinite(next)) onChange(Math.min(max, Math.max(min, next)));
        }}
      />
    </label>
  );
}

/** Run, pause, step, reset, race, slow motion and the run's state: at the top, and kept in view while presenting. */
export function RunBar() {
  const runStatus = useSpec((s) => s.run.status);
  const runError = useSpec((s) => s.run.error);
  const ready = useSpec((s) => s.engine.status === 'ready');
  const stepDelayMs = useSpec((s) => s.stepDelayMs);
  const { start, togglePause, step, reset, startRace, setStepDelay } = useSpec(
    useShallow((s) => ({ start: s.start, togglePause: s.togglePause, step: s.step, reset: s.reset, startRace: s.startRace, setStepDelay: s.setStepDelay })),
  );
  const busy = runStatus === 'running';
  return (
    <section className="run-bar" aria-label="Run">
      <div className="row buttons">
        <button type="button" onClick={start} disabled={!ready || busy}>
          Run
        </button>
        <button type="button" onClick={togglePause} disabled={!ready || (runStatus !== 'running' && runStatus !== 'paused')}>
          {runStatus === 'paused' ? 'Resume' : 'Pause'}
        </button>
        <button type="button" onClick={step} disabled={!ready || busy}>
          Step
        </button>
        <button type="button" onClick={reset} disabled={!ready}>
          Reset
        </button>
        <button type="button" onClick={startRace} disabled={!ready || busy}>
          Race all methods
        </button>
        <label className="field inline" htmlFor="delay">
          <span>Step delay {stepDelayMs} ms</span>
          <input id="delay" type="range" min={0} max={2000} step={100} value={stepDelayMs} onChange={(event) => setStepDelay(Number(event.target.value))} />
        </label>
        <span className="run-status" data-testid="run-status">
          {runStatus}
        </span>
      </div>
      {runError && (
        <p className="error" role="alert" data-testid="run-error">
          {runError}
        </p>
      )}
    </section>
  );
}

/** Every setting of a run. It selects the store's actions only, so that step batches do not redraw the form. */
export function Controls() {
  const params = useSpec((s) => s.params);
  const preset = useSpec((s) => s.preset);
  const provider = useSpec((s) => s.provider);
  const verifier = useSpec((s) => s.verifier);
  const actions = useSpec(
    useShallow((s) => ({ setProvider: s.setProvider, setVerifier: s.setVerifier, setParams: s.setParams, choosePreset: s.choosePreset, setSchemaText: s.setSchemaText })),
  );
  return (
    <section className="controls" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      <ModelPicker />
      <div className="row">
        <label className="field" htmlFor="provider">
          <span>Runtime</span>
          <select id="provider" value={provider} onChange={(event) => actions.setProvider(event.target.value as typeof provider)}>
            <option value="auto">Auto (WebGPU if available)</option>
            <option value="webgpu">WebGPU</option>
            <option value="wasm">wasm (CPU)</option>
          </select>
        </label>
        <label className="field" htmlFor="verifier-choice">
          <span>Verifier</span>
          <select id="verifier-choice" value={verifier} onChange={(event) => actions.setVerifier(event.target.value as typeof verifier)}>
            <option value="auto">Auto (WGSL on a hardware GPU)</option>
            <option value="gpu">WGSL kernels (WebGPU)</option>
            <option value="cpu">CPU twin</option>
          </select>
        </label>
        <label className="field" htmlFor="method">
          <span>Method</span>
          <select id="method" value={params.method} onChange={(event) => actions.setParams({ method: event.target.value as DecodeMethod })}>
            {DECODE_METHODS.map((method) => (
              <option key={method} value={method}>
                {METHOD_LABELS[method]}
              </option>
            ))}
          </select>
        </label>
        <NumberField label={LIMITS.K.label} id="K" value={params.K} min={LIMITS.K.min} max={LIMITS.K.max} onChange={(K) => actions.setParams({ K })} />
        <NumberField label={LIMITS.L.label} id="L" value={params.L} min={LIMITS.L.min} max={LIMITS.L.max} onChange={(L) => actions.setParams({ L })} />
        <NumberField label={LIMITS.temperature.label} id="temperature" value={params.temperature} min={LIMITS.temperature.min} max={LIMITS.temperature.max} step={0.1} onChange={(temperature) => actions.setParams({ temperature })} />
        <NumberField label="Top-p" id="top-p" value={params.topP ?? 1} min={0.05} max={1} step={0.05} onChange={(topP) => actions.setParams({ topP })} />
        <NumberField label={LIMITS.seed.label} id="seed" value={params.seed} min={LIMITS.seed.min} max={LIMITS.seed.max} onChange={(seed) => actions.setParams({ seed })} />
        <NumberField label={LIMITS.maxTokens.label} id="max-tokens" value={params.maxTokens} min={LIMITS.maxTokens.min} max={LIMITS.maxTokens.max} onChange={(maxTokens) => actions.setParams({ maxTokens })} />
        <label className="field" htmlFor="drafting">
          <span>Drafting</span>
          <select id="drafting" value={params.drafting} onChange={(event) => actions.setParams({ drafting: event.target.value as typeof params.drafting })}>
            <option value="validate">validate (draft freely, then check: I ≥ 0)</option>
            <option value="constrained">constrained (draft under the mask: I = 0)</option>
          </select>
        </label>
      </div>
      <NextRunNotice />
      <div className="row">
        <label className="field" htmlFor="preset">
          <span>Schema</span>
          <select id="preset" value={preset} onChange={(event) => actions.choosePreset(event.target.value as PresetChoice)}>
            {SCHEMA_PRESETS.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.title}
              </option>
            ))}
            <option value="custom">Custom schema…</option>
            <option value="free">No schema (free text)</option>
          </select>
        </label>
        <label className="field wide" htmlFor="prompt">
          <span>Prompt</span>
          <textarea id="prompt" rows={2} value={params.prompt} onChange={(event) => actions.setParams({ prompt: event.target.value })} />
        </label>
      </div>
      {params.schemaText !== null && (
        <label className="field wide" htmlFor="schema">
          <span>JSON schema {params.trigger ? `(applies after “${params.trigger}”)` : ''}</span>
          <textarea id="schema" rows={5} spellCheck={false} value={params.schemaText} onChange={(event) => actions.setSchemaText(event.target.value)} />
        </label>
      )}
    </section>
  );
}

import { DRAFTER_IDS, DRAFTER_INFO, usesHead, type DrafterId } from '../core/draftLaw';
import { LIMITS, type LimitedParam } from '../contract/limits';
import { describeRange, type RunField } from '../contract/validation';
import { DECODE_METHODS, type DecodeMethod } from '../contract/runParams';
import { SCHEMA_PRESETS } from '../contract/presets';
import type { PresetChoice } from '../store/shareUrl';
import { METHOD_LABELS } from './format';
import { ModelPicker } from './ModelPicker';
import { PHASES } from './StatusBar';
import { NextRunNotice } from './NextRunNotice';
import { RaceProgress } from './RaceProgress';
import { useShallow } from 'zustand/react/shallow';
import { useSpec } from './storeContext';

/** A field's message from the one validation (src/contract/validation.ts), next to the field it is about. */
function FieldMessage({ field, id }: { field: RunField; id: string }) {
  const message = useSpec((s) => s.form.errors[field]);
  if (message === undefined) return null;
  return (
    <span className="field-error" id={id} role="alert" data-testid={`field-error-${field}`}>
      {message}
    </span>
  );
}

/**
 * A number typed freely: the text stays as typed (nothing is clamped or rewritten) and is checked on blur
 * or on Run; a value out of range gets a message naming the range, and Run waits until it is fixed.
 */
function NumberField({ name, id, value }: { name: LimitedParam; id: string; value: number }) {
  const text = useSpec((s) => s.form.text[name]);
  const invalid = useSpec((s) => s.form.errors[name] !== undefined);
  const { setFieldText, commitField } = useSpec(
    useShallow((s) => ({ setFieldText: s.setFieldText, commitField: s.commitField })),
  );
  const limit = LIMITS[name];
  return (
    <label htmlFor={id} className={`field${invalid ? ' invalid' : ''}`}>
      <span>{limit.label}</span>
      <input
        id={id}
        type="text"
        inputMode={limit.integer ? 'numeric' : 'decimal'}
        title={`${limit.label}: ${describeRange(limit)}`}
        value={text ?? String(value)}
        aria-invalid={invalid}
        aria-describedby={invalid ? `${id}-error` : undefined}
        onChange={(event) => setFieldText(name, event.target.value)}
        onBlur={() => commitField(name)}
      />
      <FieldMessage field={name} id={`${id}-error`} />
    </label>
  );
}

/** Run, pause, step, reset, race, slow motion and the run's state: at the top, and kept in view while presenting. */
export function RunBar() {
  const runStatus = useSpec((s) => s.run.status);
  const runError = useSpec((s) => s.run.error);
  const ready = useSpec((s) => s.engine.status === 'ready');
  // While Run is disabled for the engine, the run bar says what it waits for (a cold `npm start` takes seconds).
  const waiting = useSpec((s) => {
    const { status, phase } = s.engine;
    if (status === 'ready') return null;
    if (status === 'error') return 'no models: they did not load (the message above says why)';
    if (status === 'idle') return 'waiting for the engine to start';
    return `waiting for the models: ${phase === null ? 'connecting' : PHASES[phase].toLowerCase()}…`;
  });
  // Run waits while any field has a message: the messages are next to their fields.
  const invalid = useSpec((s) => Object.keys(s.form.errors).length > 0);
  const stepDelayMs = useSpec((s) => s.stepDelayMs);
  const compiling = useSpec((s) => s.compiling);
  const racing = useSpec((s) => s.race.status === 'running');
  const { start, togglePause, step, reset, startRace, cancelRace, setStepDelay } = useSpec(
    useShallow((s) => ({
      start: s.start,
      togglePause: s.togglePause,
      step: s.step,
      reset: s.reset,
      startRace: s.startRace,
      cancelRace: s.cancelRace,
      setStepDelay: s.setStepDelay,
    })),
  );
  const busy = runStatus === 'running';
  return (
    <section className="run-bar" aria-label="Run">
      <div className="row buttons">
        <button
          type="button"
          onClick={start}
          disabled={!ready || busy || invalid}
          title={invalid ? 'a field needs fixing first (see its message)' : undefined}
        >
          Run
        </button>
        <button
          type="button"
          onClick={togglePause}
          disabled={!ready || (runStatus !== 'running' && runStatus !== 'paused')}
        >
          {runStatus === 'paused' ? 'Resume' : 'Pause'}
        </button>
        <button type="button" onClick={step} disabled={!ready || busy || invalid}>
          Step
        </button>
        <button type="button" onClick={reset} disabled={!ready}>
          Reset
        </button>
        {/* While a race runs, its button stops it: where it was started (the focus stays on it), named for what it does. */}
        <button
          type="button"
          onClick={racing ? cancelRace : startRace}
          disabled={!racing && (!ready || busy || invalid)}
          data-testid="race-button"
        >
          {racing ? 'Cancel race' : 'Race all methods'}
        </button>
        <label className="field inline" htmlFor="delay">
          <span>Step delay {stepDelayMs} ms</span>
          <input
            id="delay"
            type="range"
            min={0}
            max={2000}
            step={100}
            value={stepDelayMs}
            onChange={(event) => setStepDelay(Number(event.target.value))}
          />
        </label>
        <span className="run-status" data-testid="run-status">
          {runStatus}
        </span>
        {waiting && (
          <span className="run-waiting" data-testid="run-waiting">
            {waiting}
          </span>
        )}
        <RaceProgress />
      </div>
      {compiling && (
        <p data-testid="compiling">
          Compiling the schema ({compiling.properties.toLocaleString('en-US')} properties)… Reset stops it.
        </p>
      )}
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
  // Why the loaded pair offers no head drafters (a target without a features output, or no head beside it); null while none is loaded.
  const headUnavailable = useSpec((s) => s.engine.info?.headUnavailable ?? null);
  const preset = useSpec((s) => s.preset);
  const provider = useSpec((s) => s.provider);
  const verifier = useSpec((s) => s.verifier);
  const actions = useSpec(
    useShallow((s) => ({
      setProvider: s.setProvider,
      setVerifier: s.setVerifier,
      setParams: s.setParams,
      choosePreset: s.choosePreset,
      setSchemaText: s.setSchemaText,
    })),
  );
  return (
    <section className="controls" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      <ModelPicker />
      <div className="row">
        <label className="field" htmlFor="provider">
          <span>Runtime</span>
          <select
            id="provider"
            value={provider}
            onChange={(event) => actions.setProvider(event.target.value as typeof provider)}
          >
            <option value="auto">Auto (WebGPU if available)</option>
            <option value="webgpu">WebGPU</option>
            <option value="wasm">wasm (CPU)</option>
          </select>
        </label>
        <label className="field" htmlFor="verifier-choice">
          <span>Verifier</span>
          <select
            id="verifier-choice"
            value={verifier}
            onChange={(event) => actions.setVerifier(event.target.value as typeof verifier)}
          >
            <option value="auto">Auto (WGSL on a hardware GPU)</option>
            <option value="gpu">WGSL kernels (WebGPU)</option>
            <option value="cpu">CPU twin</option>
          </select>
        </label>
        <label className="field" htmlFor="method">
          <span>Method</span>
          <select
            id="method"
            value={params.method}
            onChange={(event) => actions.setParams({ method: event.target.value as DecodeMethod })}
          >
            {DECODE_METHODS.map((method) => (
              <option key={method} value={method}>
                {METHOD_LABELS[method]}
              </option>
            ))}
          </select>
          <FieldMessage field="method" id="method-error" />
        </label>
        <NumberField name="K" id="K" value={params.K} />
        <NumberField name="L" id="L" value={params.L} />
        <NumberField name="temperature" id="temperature" value={params.temperature} />
        <NumberField name="topP" id="top-p" value={params.topP ?? 1} />
        <NumberField name="seed" id="seed" value={params.seed} />
        <NumberField name="maxTokens" id="max-tokens" value={params.maxTokens} />
        <label className="field" htmlFor="drafting">
          <span>Drafting</span>
          <select
            id="drafting"
            value={params.drafting}
            onChange={(event) => actions.setParams({ drafting: event.target.value as typeof params.drafting })}
          >
            <option value="validate">validate (draft freely, then check: I ≥ 0)</option>
            <option value="constrained">constrained (draft under the mask: I = 0)</option>
          </select>
          <FieldMessage field="drafting" id="drafting-error" />
        </label>
        <label className="field" htmlFor="drafter">
          <span>Drafts from</span>
          <select
            id="drafter"
            value={params.drafter ?? 'model'}
            onChange={(event) => actions.setParams({ drafter: event.target.value as DrafterId })}
          >
            {DRAFTER_IDS.map((drafter) => {
              const unavailable = usesHead(drafter) && headUnavailable !== null;
              return (
                <option
                  key={drafter}
                  value={drafter}
                  title={unavailable ? `not offered: ${headUnavailable}` : DRAFTER_INFO[drafter].description}
                  disabled={unavailable}
                >
                  {DRAFTER_INFO[drafter].label}
                  {unavailable ? ' (not offered by this pair)' : ''}
                </option>
              );
            })}
          </select>
          {headUnavailable !== null && (
            <small className="note" data-testid="head-unavailable">
              Draft head: not offered, because {headUnavailable}.
            </small>
          )}
          <FieldMessage field="drafter" id="drafter-error" />
        </label>
      </div>
      <NextRunNotice />
      <div className="row">
        <label className="field" htmlFor="preset">
          <span>Schema</span>
          <select
            id="preset"
            value={preset}
            onChange={(event) => actions.choosePreset(event.target.value as PresetChoice)}
          >
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
          <textarea
            id="prompt"
            rows={2}
            value={params.prompt}
            onChange={(event) => actions.setParams({ prompt: event.target.value })}
          />
          <FieldMessage field="prompt" id="prompt-error" />
        </label>
      </div>
      {params.schemaText !== null && (
        <label className="field wide" htmlFor="schema">
          <span>JSON schema {params.trigger ? `(applies after “${params.trigger}”)` : ''}</span>
          <textarea
            id="schema"
            rows={5}
            spellCheck={false}
            value={params.schemaText}
            onChange={(event) => actions.setSchemaText(event.target.value)}
          />
        </label>
      )}
      <FieldMessage field="schemaText" id="schema-error" />
      <FieldMessage field="trigger" id="trigger-error" />
    </section>
  );
}

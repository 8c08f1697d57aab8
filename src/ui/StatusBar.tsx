import { useShallow } from 'zustand/react/shallow';
import { BUNDLED_PAIR } from '../contract/modelPairs';
import type { LoadPhase } from '../contract/protocol';
import { useSpec } from './storeContext';

export const PHASES: Record<LoadPhase, string> = {
  download: 'Downloading',
  hash: 'Checking file hashes',
  session: 'Creating model sessions',
};

/** Bytes for reading: KiB below one MiB, so a small file never reads as "0.0 MiB". */
const size = (bytes: number) =>
  bytes < 2 ** 20 ? `${Math.round(bytes / 2 ** 10)} KiB` : `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/**
 * Why a part runs where it does, in parentheses (or after a colon). Presentation mode hides it until the line is
 * opened, so that on a 1024-wide projector the line keeps to two or three rows.
 */
function Reason({ text, afterColon = false }: { text: string | null | undefined; afterColon?: boolean }) {
  if (!text) return null;
  return <span className="reason">{afterColon ? `: ${text}` : ` (${text})`}</span>;
}

export function StatusBar() {
  const engine = useSpec((s) => s.engine);
  const pair = useSpec((s) => s.pair);
  const { load, cancelLoad, setPair } = useSpec(
    useShallow((s) => ({ load: s.load, cancelLoad: s.cancelLoad, setPair: s.setPair })),
  );
  const files = Object.values(engine.progress);
  const loaded = files.reduce((sum, file) => sum + file.loaded, 0);
  // A file whose size is not known yet counts what has arrived, so the bar never claims more than it knows.
  const total = files.reduce((sum, file) => sum + (file.total ?? file.loaded), 0);
  const sizesKnown = files.length > 0 && files.every((file) => file.total !== null);
  const info = engine.info;
  const bundled = pair.label === BUNDLED_PAIR.label;
  return (
    <div className="status" role="status" data-testid="engine-status">
      {engine.status === 'loading' && (
        <span className="inline loading" data-testid="load-progress" data-phase={engine.phase ?? 'connecting'}>
          {engine.phase === null
            ? `Connecting to ${new URL(pair.targetUrl, location.href).host}…`
            : `${PHASES[engine.phase]}:`}{' '}
          {files.length > 0 && `${size(loaded)} of ${size(total)}${sizesKnown ? '' : ' or more'}`}{' '}
          {engine.phase === 'download' && (
            <progress max={Math.max(total, 1)} value={loaded} aria-label="download progress" />
          )}
          {!bundled && (
            <button type="button" onClick={cancelLoad}>
              Cancel (back to the bundled pair)
            </button>
          )}
        </span>
      )}
      {engine.status === 'ready' && info && (
        // One line that reads as information, not a warning; a click opens the reasons in full.
        <details className="status-line" data-testid="status-line" data-warm={engine.warm}>
          <summary title="Where the models and the verifier run, and how the target scores the drafts (click for details)">
            <span className={`dot dot-${info.provider === 'webgpu' ? 'gpu' : 'cpu'}`} aria-hidden="true" />
            <span data-testid="provider">
              {info.provider === 'webgpu' ? 'Models on WebGPU' : 'Models on wasm (CPU)'}
              {info.provider === 'webgpu' ? (
                <Reason text={info.webgpuReason} />
              ) : (
                <Reason text={info.fallbackReason} afterColon />
              )}{' '}
              · {info.draftName} → {info.targetName} · loaded in {(info.loadMs / 1000).toFixed(1)} s
            </span>
            {info.provider === 'wasm' && (
              <span data-testid="wasm-threads" data-threads={info.wasmThreads.threads}>
                ·{' '}
                {info.wasmThreads.reason === null
                  ? `${info.wasmThreads.threads} wasm threads`
                  : `wasm: ${info.wasmThreads.reason}`}{' '}
              </span>
            )}
            <span className={`dot dot-${info.verifier}`} aria-hidden="true" />
            <span data-testid="verifier" data-logits-in-place={String(info.logitsInPlace)}>
              {info.verifier === 'gpu'
                ? `Verifier: WGSL on ${info.verifierAdapter ?? 'WebGPU'}${info.logitsInPlace ? ", reading the target's logits in place" : ''}`
                : 'Verifier: CPU twin'}
              {info.verifier !== 'gpu' && <Reason text={info.verifierReason} />}
            </span>
            <span data-testid="scoring-path" data-path={info.scoring.path}>
              ·{' '}
              {info.scoring.path === 'tree'
                ? 'Scoring: one token-tree pass per step'
                : 'Scoring: K batched rows per step'}
              {info.scoring.path !== 'tree' && <Reason text={info.scoring.reason} />}
            </span>
          </summary>
        </details>
      )}
      {engine.status === 'error' && (
        <p className="error" role="alert" data-testid="load-error">
          Could not load the models: {engine.error}{' '}
          <button type="button" onClick={load}>
            Retry
          </button>{' '}
          {bundled ? null : (
            <>
              <span data-testid="recovery-hint">The bundled pair is always available offline: </span>
              <button type="button" onClick={() => setPair(BUNDLED_PAIR)}>
                Load the bundled pair
              </button>
            </>
          )}
        </p>
      )}
    </div>
  );
}

import { useSpec } from './storeContext';

export function StatusBar() {
  const engine = useSpec((s) => s.engine);
  const load = useSpec((s) => s.load);
  const files = Object.entries(engine.progress);
  const loaded = files.reduce((sum, [, file]) => sum + file.loaded, 0);
  const total = files.reduce((sum, [, file]) => sum + (file.total ?? file.loaded), 0);
  const info = engine.info;
  return (
    <div className="status" role="status" data-testid="engine-status">
      {engine.status === 'loading' && (
        <label className="inline">
          Loading models {(loaded / 2 ** 20).toFixed(1)} / {(total / 2 ** 20).toFixed(1)} MiB
          <progress max={Math.max(total, 1)} value={loaded} />
        </label>
      )}
      {engine.status === 'ready' && info && (
        // One line that reads as information, not a warning; a click opens the reasons in full.
        <details className="status-line" data-testid="status-line">
          <summary title="Where the models and the verifier run (click for details)">
            <span className={`dot dot-${info.provider === 'webgpu' ? 'gpu' : 'cpu'}`} aria-hidden="true" />
            <span data-testid="provider">
              {info.provider === 'webgpu' ? 'Models on WebGPU' : `Models on wasm (CPU)${info.fallbackReason ? `: ${info.fallbackReason}` : ''}`} · {info.draftName} → {info.targetName} · loaded in {(info.loadMs / 1000).toFixed(1)} s
            </span>
            <span className={`dot dot-${info.verifier}`} aria-hidden="true" />
            <span data-testid="verifier">{info.verifier === 'gpu' ? `Verifier: WGSL on ${info.verifierAdapter ?? 'WebGPU'}` : `Verifier: CPU twin${info.verifierReason ? ` (${info.verifierReason})` : ''}`}</span>
          </summary>
        </details>
      )}
      {engine.status === 'error' && (
        <p className="error" role="alert">
          Could not load the models: {engine.error}{' '}
          <button type="button" onClick={load}>
            Retry
          </button>
        </p>
      )}
    </div>
  );
}

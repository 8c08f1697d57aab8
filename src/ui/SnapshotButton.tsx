import { useState, type RefObject } from 'react';
import { SNAPSHOT_HEIGHT, SNAPSHOT_WIDTH, snapshotDashboard } from './chartExport';
import { download } from './download';

/** Saves the dashboard (output, counters, charts) as one slide-sized PNG. */
export function SnapshotButton({ dashboard }: { dashboard: RefObject<HTMLElement | null> }) {
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  const snapshot = async () => {
    if (!dashboard.current) return;
    setState({ busy: true, error: null });
    try {
      download(
        `speclab-dashboard-${SNAPSHOT_WIDTH}x${SNAPSHOT_HEIGHT}.png`,
        await snapshotDashboard(dashboard.current),
      );
      setState({ busy: false, error: null });
    } catch (error) {
      setState({ busy: false, error: `Snapshot failed: ${(error as Error).message}` });
    }
  };
  return (
    <>
      <button type="button" onClick={() => void snapshot()} disabled={state.busy} data-testid="snapshot">
        {state.busy ? 'Saving snapshot…' : `Snapshot (${SNAPSHOT_WIDTH} × ${SNAPSHOT_HEIGHT} PNG)`}
      </button>
      {state.error && (
        <span className="error" role="alert">
          {state.error}
        </span>
      )}
    </>
  );
}

import type { RunParams } from '../contract/runParams';
import { useSpec } from './storeContext';

const WATCHED: readonly { key: keyof RunParams; name: string }[] = [
  { key: 'method', name: 'method' },
  { key: 'K', name: 'K' },
  { key: 'L', name: 'L' },
  { key: 'temperature', name: 'temperature' },
  { key: 'topP', name: 'top-p' },
  { key: 'seed', name: 'seed' },
  { key: 'maxTokens', name: 'max tokens' },
  { key: 'drafting', name: 'drafting' },
  { key: 'prompt', name: 'prompt' },
  { key: 'schemaText', name: 'schema' },
];

/**
 * A run keeps the parameters it started with. While one is running or paused, settings changed in the form
 * are said to wait for the next run, instead of seeming to apply at once.
 */
export function NextRunNotice() {
  const status = useSpec((s) => s.run.status);
  const running = useSpec((s) => s.run.params);
  const form = useSpec((s) => s.params);
  if (status !== 'running' && status !== 'paused') return null;
  const changed = WATCHED.filter(({ key }) => form[key] !== running[key]).map(({ name }) => name);
  if (changed.length === 0) return null;
  return (
    <p className="next-run" role="status" data-testid="next-run-notice">
      Changed {changed.join(', ')}: applies to the next run. This run continues with K={running.K}, L={running.L}, T={running.temperature}.
    </p>
  );
}

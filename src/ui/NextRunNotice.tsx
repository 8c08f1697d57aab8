import { describeK, type RunParams } from '../contract/runParams';
import { useSpec } from './storeContext';

/** How a changed parameter is named in the notice, where its key would not read well. */
const SPOKEN: Partial<Record<keyof RunParams, string>> = {
  topP: 'top-p',
  topK: 'top-k',
  maxTokens: 'max tokens',
  schemaText: 'schema',
  trigger: 'schema trigger',
};

/**
 * A run keeps the parameters it started with. While one is running or paused, settings changed in the form
 * are said to wait for the next run, instead of seeming to apply at once.
 */
export function NextRunNotice() {
  const status = useSpec((s) => s.run.status);
  const running = useSpec((s) => s.run.params);
  const form = useSpec((s) => s.params);
  if (status !== 'running' && status !== 'paused') return null;
  const keys = new Set([...Object.keys(running), ...Object.keys(form)] as (keyof RunParams)[]);
  const changed = [...keys].filter((key) => form[key] !== running[key]).map((key) => SPOKEN[key] ?? key);
  if (changed.length === 0) return null;
  return (
    <p className="next-run" role="status" data-testid="next-run-notice">
      Changed {changed.join(', ')}: applies to the next run. This run continues with{' '}
      {describeK(running.method, running.K)}, L = {running.L}, T = {running.temperature}.
    </p>
  );
}

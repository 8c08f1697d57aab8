import type { StepRecord } from '../contract/stepRecord';
import { fixed } from './format';

/**
 * At the step's first position, α* (the most any lossless verifier of these i.i.d. drafts accepts
 * there, averaged over fresh drafts) beside what this step's verifier achieved in expectation over its own
 * choices, given the drafts it saw. Per position only: block verifiers can pass α* over a whole block.
 */
export function FirstPositionOptimum(props: { firstPosition: StepRecord['firstPosition']; drafts: number }) {
  const { firstPosition, drafts } = props;
  if (!firstPosition) return null;
  return (
    <p data-testid="first-position-optimum">
      First position: the best any lossless verifier of {drafts} i.i.d. draft{drafts === 1 ? '' : 's'} accepts there is
      α* = {fixed(firstPosition.optimum, 3)} (averaged over the drafts; optimal-tree reaches it). This step’s verifier,
      given these drafts, accepted at least one token with probability {fixed(firstPosition.achieved, 3)}
      {firstPosition.achieved === null ? ' (too many verifier paths to enumerate)' : ''}.
    </p>
  );
}

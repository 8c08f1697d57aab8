/**
 * Where a talk scene's claim is on screen (src/contract/sceneClaims.ts): the scene's seeded run, decoded until
 * the first step that shows it. The run is the one the scene will replay (same parameters, same seed, same
 * engine), so the step found is the step the scene opens on.
 */
import { RUN_CLAIMS, stepShows, type SceneClaim } from '../contract/sceneClaims';
import type { RunParams } from '../contract/runParams';
import type { StepRecord } from '../contract/stepRecord';

/**
 * What the search needs of an engine: a seeded run that reports each step, with the teaching analyses the claims
 * read, and stops on a signal (SpecEngine has it).
 */
interface Decoder {
  run(
    params: RunParams,
    onStep: (record: StepRecord) => void,
    signal: AbortSignal,
    extras: { analyses: true },
  ): Promise<unknown>;
}

/** The first step (from 1) of the run `params` that shows `claim`, or null when the run ends without one. */
export async function findClaimStep(engine: Decoder, params: RunParams, claim: SceneClaim): Promise<number | null> {
  if (RUN_CLAIMS.includes(claim)) return null;
  const stop = new AbortController();
  let found: number | null = null;
  let steps = 0;
  await engine.run(
    params,
    (record) => {
      steps++;
      if (found === null && stepShows(claim, record)) {
        found = steps;
        // Decoding on past the step found would only cost the load time.
        stop.abort();
      }
    },
    stop.signal,
    { analyses: true },
  );
  return found;
}

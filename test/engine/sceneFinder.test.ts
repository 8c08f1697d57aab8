/**
 * The example talk's claims, found by running each scene's seeded run on the bundled pair (the engine the app's
 * worker runs): every scene that claims a step has one, it shows that claim and no earlier step does, and a
 * run too short to reach it finds none (the talk is then refused).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_CLAIMS, stepShows } from '../../src/contract/sceneClaims';
import type { StepRecord } from '../../src/contract/stepRecord';
import type { EngineSetup } from '../../src/engine/setup';
import { findClaimStep } from '../../src/engine/sceneFinder';
import { parseTalk, type Talk } from '../../src/store/talk';
import { setupNodeEngine } from '../../tools/nodeEngine';

describe('finding the step that shows a scene’s claim', () => {
  let setup: EngineSetup;
  let talk: Talk;
  beforeAll(async () => {
    setup = await setupNodeEngine('cpu');
    const parsed = parseTalk(readFileSync('public/talks/introduction.json', 'utf8'));
    if ('error' in parsed) throw new Error(parsed.error);
    talk = parsed.talk;
  });
  afterAll(() => setup.dispose());

  it('every scene of the example talk declares a claim, and its run shows it at the step found, not before', async () => {
    for (const [index, scene] of talk.scenes.entries()) {
      const claim = scene.shows;
      if (claim === undefined) throw new Error(`scene ${index + 1} declares no "shows"`);
      if (RUN_CLAIMS.includes(claim)) continue;
      const found = await findClaimStep(setup.engine, scene.run.params, claim);
      expect(found, `scene ${index + 1} (${claim})`).not.toBeNull();
      const steps: StepRecord[] = [];
      await setup.engine.run(scene.run.params, (record) => void steps.push(record), undefined, { analyses: true });
      const shown = steps.map((step) => stepShows(claim, step));
      expect(shown.indexOf(true) + 1, `scene ${index + 1} (${claim})`).toBe(found);
    }
  }, 300_000);

  it('a run that ends before its claim shows finds no step', async () => {
    const scene = talk.scenes.find((candidate) => candidate.shows === 'invalidation');
    if (!scene) throw new Error('the example talk has no invalidation scene');
    const found = await findClaimStep(setup.engine, scene.run.params, 'invalidation');
    if (found === null) throw new Error('the invalidation scene finds no step');
    // A run stopped a token before that step's first token cannot have reached it.
    const steps: StepRecord[] = [];
    await setup.engine.run(scene.run.params, (record) => void steps.push(record), undefined, { analyses: true });
    const before = steps.slice(0, found - 1).reduce((sum, step) => sum + step.emitted.length, 0);
    await expect(findClaimStep(setup.engine, { ...scene.run.params, maxTokens: before }, 'invalidation')).resolves.toBe(
      null,
    );
  }, 300_000);
});

import { describe, expect, it } from 'vitest';
import { draftTree, explainStep } from '../../src/core/explain';
import { rngSource } from '../../src/core/random';
import { createRng } from '../../src/core/rng';
import { replaySource, tracingSource } from '../../src/core/trace';
import { VERIFIERS, VERIFIER_IDS, denseView } from '../../src/core/verify';
import { randomTwinCase } from '../gpu/twinHarness';

const PROBLEMS = 1000;

/** Small vocabularies, so that drafts share prefixes and every branch of every rule is taken. */
function problems(seed: number) {
  const rng = createRng(seed);
  return Array.from({ length: PROBLEMS }, () => {
    const V = 2 + Math.floor(rng.uniform() * 10);
    const K = 1 + Math.floor(rng.uniform() * 8);
    const L = 1 + Math.floor(rng.uniform() * 8);
    const temperature = [0.5, 1, 2][Math.floor(rng.uniform() * 3)] as number;
    return randomTwinCase(rng, 'tokenwise', { V, K, L, sampling: { temperature }, masked: rng.uniform() < 0.3 });
  });
}

const rows = (drafts: Int32Array, K: number, L: number) =>
  Array.from({ length: K }, (_, k) => Array.from(drafts.subarray(k * L, (k + 1) * L)));

describe('the decision trace', () => {
  it.each(VERIFIER_IDS.map((method) => [method]))(
    '%s: the recorded decisions, replayed, reproduce the verifier on 1,000 random problems, and explain every cell',
    (method) => {
      let examinedCells = 0;
      let unexaminedCells = 0;
      for (const [n, c] of problems(7 + method.length).entries()) {
        const view = denseView(c.reference);
        // Each problem its own stream: the traced run and the plain run consume the same uniforms.
        const stream = createRng(c.seed, 3, n);
        const tracing = tracingSource(stream);
        const outcome = VERIFIERS[method](view, tracing);
        const plain = VERIFIERS[method](view, rngSource(createRng(c.seed, 3, n)));
        expect(Array.from(outcome.tokens)).toEqual(Array.from(plain.tokens));
        expect(outcome.draft).toBe(plain.draft);

        // Replayed from the record alone, the verifier asks the same questions and reaches the same outcome.
        const replay = replaySource(tracing.decisions);
        const replayed = VERIFIERS[method](view, replay);
        expect(replay.remaining()).toBe(0);
        expect({ draft: replayed.draft, tokens: Array.from(replayed.tokens) }).toEqual({
          draft: outcome.draft,
          tokens: Array.from(outcome.tokens),
        });
        for (const { draw } of tracing.decisions)
          if (draw?.kind === 'bernoulli') expect(draw.value).toBe(draw.u < draw.p);

        // The explanation, read from the notes alone, names the outcome the verifier returned.
        const drafts = rows(c.drafts, c.K, c.L);
        const explained = explainStep(
          tracing.decisions,
          { drafts, validLengths: drafts.map(() => c.L) },
          (token) => `t${token}`,
        );
        expect({ chosen: explained.chosen, accepted: explained.accepted, finalToken: explained.finalToken }).toEqual({
          chosen: outcome.draft,
          accepted: outcome.accepted,
          finalToken: outcome.tokens[outcome.accepted],
        });
        expect(explained.finalLine).toMatch(/^u = \d\.\d{3} → “t\d+” at position \d+, drawn from /);
        const chosenRow = explained.cells[outcome.draft] ?? [];
        for (let j = 0; j < outcome.accepted; j++)
          expect(chosenRow[j]?.status, `${method} problem ${n} cell ${j}`).toBe('accepted');
        if (outcome.accepted < c.L) {
          expect(chosenRow[outcome.accepted]?.status).toBe('rejected');
          expect(chosenRow[outcome.accepted]?.line).toMatch(/^u = \d\.\d+ ≥ /);
        }
        for (const cell of explained.cells.flat()) {
          if (cell.examined) {
            examinedCells++;
            expect(cell.line).toMatch(/u = \d\.\d+ (<|≥) .+ = \d\.\d+/);
          } else {
            unexaminedCells++;
            expect(cell.line).toMatch(/not examined/);
          }
        }
      }
      expect(examinedCells).toBeGreaterThan(PROBLEMS);
      if (method !== 'gbv') expect(unexaminedCells).toBeGreaterThan(0);
    },
  );

  it('the tree has exactly one node per distinct prefix, plus the root and the final leaf', () => {
    for (const c of problems(99).slice(0, 300)) {
      const view = denseView(c.reference);
      const tracing = tracingSource(createRng(c.seed, 3));
      const outcome = VERIFIERS['spectr-gbv'](view, tracing);
      const drafts = rows(c.drafts, c.K, c.L);
      const shape = { drafts, validLengths: drafts.map(() => c.L) };
      const explained = explainStep(tracing.decisions, shape, String);
      const nodes = draftTree(shape, explained.cells, {
        draft: outcome.draft,
        accepted: outcome.accepted,
        finalToken: outcome.tokens[outcome.accepted] ?? null,
        finalOrigin: outcome.accepted === c.L ? 'bonus' : 'correction',
      });
      // Distinct prefixes counted another way: sort every prefix and count the changes.
      const prefixes = drafts.flatMap((draft) => draft.map((_, j) => draft.slice(0, j + 1).join(' '))).sort();
      const distinct = prefixes.filter((prefix, i) => prefix !== prefixes[i - 1]).length;
      expect(nodes.filter((node) => node.status !== 'root' && node.status !== 'final')).toHaveLength(distinct);
      expect(nodes.filter((node) => node.status === 'root')).toHaveLength(1);
      expect(nodes.filter((node) => node.status === 'final')).toHaveLength(1);
      // The emitted path: the accepted prefix and the final leaf, no more.
      expect(nodes.filter((node) => node.emitted && node.status !== 'root')).toHaveLength(outcome.accepted + 1);
    }
  });

  it('marks each tree node with the source of its token, shared by every draft through it', () => {
    // Two drafts share a forced first token; then one looks a token up and the other samples one.
    const shape = {
      drafts: [
        [5, 7],
        [5, 2],
      ],
      validLengths: [2, 2],
      sources: [
        ['grammar', 'lookup'],
        ['grammar', 'model'],
      ] as const,
    };
    const nodes = draftTree(shape, [[], []], { draft: 0, accepted: 2, finalToken: 1, finalOrigin: 'bonus' });
    expect(nodes.map(({ token, source, drafts }) => [token, source, drafts])).toEqual([
      [null, null, [0, 1]],
      [5, 'grammar', [0, 1]],
      [7, 'lookup', [0]],
      [2, 'model', [1]],
      [1, null, [0]],
    ]);
    // A step recorded without sources drafted from the model.
    expect(
      draftTree({ drafts: [[3]], validLengths: [1] }, [[]], {
        draft: 0,
        accepted: 0,
        finalToken: null,
        finalOrigin: null,
      }).map((node) => node.source),
    ).toEqual([null, 'model']);
  });
});

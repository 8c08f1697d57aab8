/**
 * The decode loop end to end on the bundled models (onnxruntime-web wasm EP in Node): greedy decoding is
 * reproduced token for token by every method, the CPU and WGSL verifiers agree, acceptance sits in the
 * band the models were sized for, and bad input is refused by name.
 */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivedRatios, eligible } from '../../src/core/metrics';
import { PromptTooLongError } from '../../src/engine/decode';
import type { StepRecord } from '../../src/contract/stepRecord';
import { SpecEngine } from '../../src/engine/engine';
import type { RunReport } from '../../src/contract/runReport';
import { DECODE_METHODS, findPreset, presetParams, reportedK, type RunParams } from '../../src/contract/runParams';
import { gpuStepVerifier } from '../../src/gpu/stepVerifier';
import { ajvValidator } from '../support/ajvValidator';
import { SCHEMA_PRESETS, type SchemaPreset } from '../../src/contract/presets';
import { bundledPair } from '../support/models';
import { explainStep } from '../../src/core/explain';
import { DEFAULT_DRAFTER } from '../../src/core/draftLaw';
import { suiteDevices } from '../support/gpu';

const ajv = new Ajv({ strict: false });

/** The identities every run must keep. */
function expectConsistent(report: RunReport): void {
  const { counters } = report;
  expect(eligible(counters)).toBe(counters.raw - counters.invalidated);
  expect(counters.accepted).toBeLessThanOrEqual(eligible(counters));
  expect(counters.histogram.reduce((a, b) => a + b, 0)).toBe(counters.steps);
  expect(counters.steps).toBe(report.steps);
  expect(derivedRatios(counters).meanAcceptanceLength).toBeCloseTo(1 + counters.accepted / counters.steps, 12);
}

/** The JSON part of an output: after the preset's trigger, if it has one. */
const jsonPart = (preset: SchemaPreset, text: string) =>
  preset.trigger ? text.slice(text.indexOf(preset.trigger) + preset.trigger.length) : text;

/** What the page's run asks for: the final token's law and the verifier's decisions these tests read. */
const WITH_ANALYSES = { analyses: true };

describe('the decode loop on the bundled models', () => {
  let engine: SpecEngine;
  const gpu = suiteDevices();
  beforeAll(async () => {
    engine = SpecEngine.create(await bundledPair(), ajvValidator);
  });
  afterAll(() => engine.dispose());

  const run = (preset: SchemaPreset, overrides: Partial<RunParams>) => engine.run(presetParams(preset, overrides));

  it.each(SCHEMA_PRESETS.map((preset) => [preset.id, preset] as const))(
    '%s at T = 0: every method emits exactly the greedy target’s tokens, scoring on the tree path',
    async (_id, preset) => {
      const greedy = await run(preset, { method: 'ar', temperature: 0 });
      expect(greedy.verdict).toEqual({ kind: 'valid' });
      expectConsistent(greedy);
      expect(engine.scoring).toEqual({ path: 'tree', reason: null });
      for (const method of DECODE_METHODS.filter((m) => m !== 'ar')) {
        const paths = new Set<string | undefined>();
        const report = await engine.run(
          presetParams(preset, { method, temperature: 0, K: 3 }),
          (record) => void paths.add(record.scoring?.path),
        );
        expect(report.tokens, method).toEqual(greedy.tokens);
        // ar+jump-forward scores only where the schema forces text; its other steps are ar's.
        expect(
          [...paths].filter((path) => method !== 'ar+jump-forward' || path !== undefined),
          method,
        ).toEqual(['tree']);
        // A single-draft method reports the one draft it read, not the K it was given.
        expect([report.params.K, report.requestedK], method).toEqual([reportedK(method, 3), 3]);
        expectConsistent(report);
      }
    },
  );

  it('at T = 0 copies every value of each preset’s own prompt, and of a book schema whose prompt names no key', async () => {
    const expected: Record<SchemaPreset['id'], unknown> = {
      sentiment: { sentiment: 'positive', reason: 'lasts two full days' },
      person: { name: 'Maria Lopez', age: 34, member: true },
      order: {
        order_id: 'A-17',
        items: [
          { sku: 'X-100', quantity: 2 },
          { sku: 'H-20', quantity: 1 },
        ],
        total: 31.5,
      },
      event: { title: 'robotics meetup', date: '2026-03-14', attendees: 120, rating: 4.5 },
      reasoning: { answer: 36, confident: true },
    };
    for (const preset of SCHEMA_PRESETS) {
      const report = await run(preset, { method: 'ar', temperature: 0 });
      expect(JSON.parse(jsonPart(preset, report.text)), preset.id).toEqual(expected[preset.id]);
    }
    const book = {
      type: 'object',
      properties: {
        title: { type: 'string' },
        author: { type: 'string' },
        year: { type: 'integer' },
        available: { type: 'boolean' },
      },
      required: ['title', 'author', 'year', 'available'],
      additionalProperties: false,
    };
    const report = await engine.run(
      presetParams(SCHEMA_PRESETS[1] as SchemaPreset, {
        method: 'ar',
        temperature: 0,
        schemaText: JSON.stringify(book),
        // The sentence as a teacher types it, without the presets' "Text: … JSON: " frame.
        prompt: 'The Hobbit by J.R.R. Tolkien, published 1937, in stock.',
      }),
    );
    expect(JSON.parse(report.text)).toEqual({
      title: 'The Hobbit',
      author: 'J.R.R. Tolkien',
      year: 1937,
      available: true,
    });
  });

  it('the target alone, greedy and without the grammar, writes schema-valid JSON for every preset', async () => {
    for (const preset of SCHEMA_PRESETS) {
      const report = await run(preset, { method: 'ar', temperature: 0, schemaText: null });
      const value: unknown = JSON.parse(jsonPart(preset, report.text));
      expect(ajv.validate(preset.schema, value), `${preset.id}: ${report.text}`).toBe(true);
    }
  });

  it('token-wise acceptance A/D at T = 1, K = 1, L = 4 lies in the declared band 0.5–0.9', async () => {
    let accepted = 0;
    let eligibleTokens = 0;
    for (const preset of SCHEMA_PRESETS) {
      for (const seed of [1, 2, 3]) {
        const report = await run(preset, { method: 'tokenwise', K: 1, L: 4, temperature: 1, seed });
        expectConsistent(report);
        accepted += report.counters.accepted;
        eligibleTokens += eligible(report.counters);
      }
    }
    const rate = accepted / eligibleTokens;
    expect(rate).toBeGreaterThan(0.5);
    expect(rate).toBeLessThan(0.9);
  });

  it('the WGSL verifier gives the same text and counters as the CPU twin', async () => {
    const onGpu = SpecEngine.create(await bundledPair(), ajvValidator, gpuStepVerifier(gpu.manager()));
    try {
      for (const [preset, method] of [
        [SCHEMA_PRESETS[1], 'spectr-gbv'],
        [SCHEMA_PRESETS[2], 'gbv'],
        [SCHEMA_PRESETS[4], 'spectr'],
      ] as const) {
        const params = presetParams(preset as SchemaPreset, { method, temperature: 1, seed: 5 });
        const cpuLaws: StepRecord['finalLaw'][] = [];
        const gpuLaws: StepRecord['finalLaw'][] = [];
        const cpu = await engine.run(params, (record) => void cpuLaws.push(record.finalLaw), undefined, WITH_ANALYSES);
        const gpuReport = await onGpu.run(
          params,
          (record) => void gpuLaws.push(record.finalLaw),
          undefined,
          WITH_ANALYSES,
        );
        expect(gpuReport.tokens).toEqual(cpu.tokens);
        expect(gpuReport.counters).toEqual(cpu.counters);
        // The kernels do not report the final token's law; the twin's replay fills it in, step for step.
        expect(gpuLaws).toEqual(cpuLaws);
        expect(gpuLaws.filter((law) => law !== null).length).toBeGreaterThan(cpuLaws.length / 2);
      }
    } finally {
      onGpu.dispose();
    }
  });

  it.each(SCHEMA_PRESETS.map((preset) => [preset.id, preset] as const))(
    '%s: the lecture step (its seed and temperature, SpecTr-GBV, K = 3, L = 4, the app’s drafter) has a branch, a rejected and an accepted draft-model token and a residual draw; no forced token is marked rejected',
    async (_id, preset) => {
      const { seed, temperature, step: lectureStep } = preset.lecture;
      const steps: StepRecord[] = [];
      await engine.run(
        presetParams(preset, {
          method: 'spectr-gbv',
          K: 3,
          L: 4,
          seed,
          temperature,
          drafter: DEFAULT_DRAFTER,
          maxTokens: 40,
        }),
        (record) => void steps.push(record),
        undefined,
        WITH_ANALYSES,
      );
      const story = (record: StepRecord) => {
        const shape = { drafts: record.drafts, validLengths: record.validLengths, sources: record.draftSources };
        const { cells } = explainStep(record.decisions ?? [], shape, String);
        const where = (status: string, source: string) =>
          cells.flatMap((row, k) =>
            row.filter((cell, j) => cell.status === status && record.draftSources[k]?.[j] === source),
          ).length;
        const prefixes = new Set(record.drafts.flatMap((draft) => draft.map((_, j) => draft.slice(0, j + 1).join(','))))
          .size;
        return {
          branch: prefixes > Math.max(...record.drafts.map((draft) => draft.length)),
          rejected: where('rejected', 'model'),
          accepted: where('accepted', 'model'),
          residual: record.emitted.at(-1)?.origin === 'correction',
          forcedRejected: where('rejected', 'grammar'),
        };
      };
      const shown = steps[lectureStep - 1];
      if (!shown) throw new Error(`the run has no step ${lectureStep}`);
      const told = story(shown);
      expect(told).toMatchObject({ branch: true, residual: true, forcedRejected: 0 });
      expect(told.rejected).toBeGreaterThanOrEqual(1);
      expect(told.accepted).toBeGreaterThanOrEqual(1);
      // It is the first step of the run that teaches all four, so the lecture never skips past one; and no step
      // of the run marks a token the schema forced as rejected.
      const teaches = (record: StepRecord) => {
        const { branch, residual, rejected, accepted } = story(record);
        return branch && residual && rejected > 0 && accepted > 0;
      };
      expect(steps.slice(0, lectureStep).map(teaches)).toEqual(
        steps.slice(0, lectureStep).map((_, i) => i === lectureStep - 1),
      );
      for (const record of steps) expect(story(record).forcedRejected).toBe(0);
    },
  );

  it('the README’s example test is one the app shows at the person preset’s lecture step', async () => {
    const example = /drawn u \(`(u = [^`]+)`\)/.exec(readFileSync('README.md', 'utf8').replace(/\s+/g, ' '))?.[1];
    expect(example, 'the README quotes a test').toBeDefined();
    const person = findPreset('person');
    const steps: StepRecord[] = [];
    await engine.run(
      presetParams(person, {
        method: 'spectr-gbv',
        K: 3,
        L: 4,
        seed: person.lecture.seed,
        temperature: person.lecture.temperature,
        drafter: DEFAULT_DRAFTER,
        maxTokens: 40,
      }),
      (record) => void steps.push(record),
      undefined,
      WITH_ANALYSES,
    );
    const shown = steps[person.lecture.step - 1];
    if (!shown) throw new Error('no lecture step');
    const { lines } = explainStep(
      shown.decisions ?? [],
      { drafts: shown.drafts, validLengths: shown.validLengths, sources: shown.draftSources },
      String,
    );
    expect(lines.map((line) => line.text)).toContain(example);
    // The replay's padding test (test/ui/replayPadding.test.tsx) reads this step as recorded: it must stay this run's.
    const recorded = JSON.parse(readFileSync('test/fixtures/steps/person-lecture-step-2.json', 'utf8')) as StepRecord;
    const decided = (record: StepRecord) =>
      (record.decisions ?? []).map(({ note, draw }) => [note?.kind, draw?.u, draw?.kind === 'bernoulli' && draw.value]);
    expect({ drafts: shown.drafts, chosen: shown.chosen, accepted: shown.accepted, decided: decided(shown) }).toEqual({
      drafts: recorded.drafts,
      chosen: recorded.chosen,
      accepted: recorded.accepted,
      decided: decided(recorded),
    });
  });

  it('constrained drafting reports I = 0 and still emits valid JSON', async () => {
    const report = await run(SCHEMA_PRESETS[3] as SchemaPreset, { drafting: 'constrained', seed: 4 });
    expect(report.counters.invalidated).toBe(0);
    expect(report.verdict).toEqual({ kind: 'valid' });
  });

  it('refuses a prompt longer than the context, naming both lengths', async () => {
    await expect(run(SCHEMA_PRESETS[0] as SchemaPreset, { prompt: 'word '.repeat(400) })).rejects.toThrow(
      PromptTooLongError,
    );
    await expect(run(SCHEMA_PRESETS[0] as SchemaPreset, { prompt: 'word '.repeat(400) })).rejects.toThrow(
      /the prompt is \d+ tokens and one step needs \d+ more positions; the models see 256, so the prompt must be at most \d+ tokens/,
    );
  });

  // A 400 KB prompt from a link once gave "Maximum call stack size exceeded" instead of this refusal.
  it.each([400_000, 1_000_000])(
    'refuses a prompt of %i characters with the token count, not a stack overflow',
    async (chars) => {
      await expect(run(SCHEMA_PRESETS[0] as SchemaPreset, { prompt: 'word '.repeat(chars / 5) })).rejects.toThrow(
        /^the prompt is \d+ tokens and one step needs \d+ more positions; the models see 256/,
      );
    },
  );

  it('a cancelled run stops between whole steps, and the engine runs again afterwards', async () => {
    const controller = new AbortController();
    let seen = 0;
    const report = await engine.run(
      presetParams(SCHEMA_PRESETS[2] as SchemaPreset),
      () => {
        if (++seen === 2) controller.abort();
      },
      controller.signal,
    );
    expect(report.ending).toBe('cancelled');
    expect(report.steps).toBe(2);
    expectConsistent(report);
    const again = await run(SCHEMA_PRESETS[1] as SchemaPreset, {});
    expect(again.ending).toBe('stopped');
    expect(again.verdict).toEqual({ kind: 'valid' });
  });
});

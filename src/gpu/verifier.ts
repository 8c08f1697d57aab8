import { seedKey } from '../core/rng';
import { maskWordCount, type SamplingParams } from '../core/sampling';
import {
  MAX_DRAFTS,
  MAX_DRAFT_LENGTH,
  VERIFIER_IDS,
  wgslMethodCode,
  type VerifierId,
  type VerifyOutcome,
} from '../core/verify';
import type { GpuDeviceManager } from './device';
import {
  GpuInputError,
  GpuWork,
  checkBindingSize,
  checkDispatch,
  workgroupSizeFor,
  type KernelProgram,
} from './kernel';
import { encodeRecords, type RecordValues } from './records';
import { ACCEPT, OUTCOME_STATUS, PROBLEM_RECORD, composeWgsl } from './shaders';

type ProblemField = (typeof PROBLEM_RECORD.fields)[number]['name'];
import { PROB_ROW_STATUS, encodeProbs, type ProbRowSpec } from './kernels/probs';

/** CPU twin: the verifiers of src/core/verify, driven by rngSource(rng). */
export const acceptProgram: KernelProgram = {
  name: 'accept',
  code: composeWgsl(ACCEPT),
  entryPoint: 'main',
  workgroupSize: 256,
  sizeIsOverridable: true,
};

const NO_INDEX = 0xffffffff;
const OUTCOME_HEADER_WORDS = 4;
/** Header, the emitted tokens (at most L + 1), then the block trace: its start and (w, Z, h) for i = 0..L. */
export const outcomeWords = (L: number) => OUTCOME_HEADER_WORDS + (L + 1) + 1 + 3 * (L + 1);

/** A region of a GPU buffer, in 4-byte elements. */
export interface GpuRegion {
  buffer: GPUBuffer;
  offset: number;
}

/** One verification step whose logits already live on the GPU (onnxruntime-web `gpu-buffer` outputs). */
export interface GpuVerifyStep {
  method: VerifierId;
  K: number;
  L: number;
  V: number;
  /** K×L drafted token ids, row-major. */
  drafts: Int32Array;
  /** K×(L+1)×V f32 target logits: row (k, j) scores the position after d_k[0..j). */
  targetLogits: GpuRegion;
  /** K×L×V f32 logits the drafter sampled d_k[j] from. */
  draftLogits: GpuRegion;
  /** K×(L+1) xgrammar bitmasks for the target rows, or null. */
  targetMasks: GpuRegion | null;
  /** K×L bitmasks the drafter sampled under (constrained drafting), or null. */
  draftMasks: GpuRegion | null;
  targetSampling: SamplingParams;
  draftSampling: SamplingParams;
  seed: number;
  stream: number;
  /** Index of the first Philox word this step may consume. */
  firstWord: number;
}

export interface GpuVerifyOutcome extends VerifyOutcome {
  /** Philox words the step consumed: the next step starts at firstWord + wordsUsed. */
  wordsUsed: number;
}

function regionCheck(where: string, name: string, region: GpuRegion, elements: number): void {
  if (!(Number.isInteger(region.offset) && region.offset >= 0)) {
    throw new GpuInputError(`${where}: ${name} offset must be a non-negative integer, got ${region.offset}`);
  }
  if ((region.offset + elements) * 4 > region.buffer.size) {
    throw new GpuInputError(
      `${where}: ${name} needs elements [${region.offset}, ${region.offset + elements}) but its buffer holds ${region.buffer.size / 4}`,
    );
  }
}

export function validateVerifyStep(step: GpuVerifyStep, index = 0): void {
  const where = `verify step ${index}`;
  const { K, L, V } = step;
  if (!VERIFIER_IDS.includes(step.method)) throw new GpuInputError(`${where}: unknown method '${String(step.method)}'`);
  if (wgslMethodCode(step.method) === null)
    throw new GpuInputError(`${where}: method '${step.method}' has no WGSL kernel; verify it on the CPU twin`);
  if (!(Number.isInteger(K) && K >= 1 && K <= MAX_DRAFTS))
    throw new GpuInputError(`${where}: K must be an integer in 1..${MAX_DRAFTS}, got ${K}`);
  if (!(Number.isInteger(L) && L >= 1 && L <= MAX_DRAFT_LENGTH)) {
    throw new GpuInputError(`${where}: L must be an integer in 1..${MAX_DRAFT_LENGTH}, got ${L}`);
  }
  if (!(Number.isInteger(V) && V >= 1)) throw new GpuInputError(`${where}: V must be a positive integer, got ${V}`);
  if (step.drafts.length !== K * L)
    throw new GpuInputError(`${where}: drafts has ${step.drafts.length} entries, expected K×L = ${K * L}`);
  regionCheck(where, 'targetLogits', step.targetLogits, K * (L + 1) * V);
  regionCheck(where, 'draftLogits', step.draftLogits, K * L * V);
  if (step.targetMasks) regionCheck(where, 'targetMasks', step.targetMasks, K * (L + 1) * maskWordCount(V));
  if (step.draftMasks) regionCheck(where, 'draftMasks', step.draftMasks, K * L * maskWordCount(V));
  seedKey(step.seed);
  if (!(Number.isInteger(step.stream) && step.stream >= 0 && step.stream < 2 ** 32)) {
    throw new GpuInputError(`${where}: stream must be an integer in [0, 2^32), got ${step.stream}`);
  }
  if (!(Number.isInteger(step.firstWord) && step.firstWord >= 0 && step.firstWord < 2 ** 32)) {
    throw new GpuInputError(`${where}: firstWord must be an integer in [0, 2^32), got ${step.firstWord}`);
  }
}

interface Layout {
  rows: ProbRowSpec[];
  /** One Problem record per step (PROBLEM_RECORD in shaders.ts). */
  problems: RecordValues<ProblemField>[];
  drafts: Uint32Array<ArrayBuffer>;
  logitFloats: number;
  maskWords: number;
  scratchFloats: number;
  outcomeWords: number;
  outcomeOffsets: number[];
  copies: { source: GpuRegion; target: 'logits' | 'masks'; at: number; elements: number }[];
}

/** Lays a batch out: every step's logits and masks gathered into one buffer each, by GPU-side copies. */
function layOut(steps: readonly GpuVerifyStep[]): Layout {
  const layout: Layout = {
    rows: [],
    problems: [],
    drafts: new Uint32Array(steps.reduce((n, s) => n + s.drafts.length, 0)),
    logitFloats: 0,
    maskWords: 0,
    scratchFloats: 0,
    outcomeWords: 0,
    outcomeOffsets: [],
    copies: [],
  };
  let draftsAt = 0;
  steps.forEach((step) => {
    const { K, L, V } = step;
    const W = maskWordCount(V);
    const probsOffset = layout.logitFloats;
    const statusOffset = layout.rows.length;
    const addRows = (count: number, logits: GpuRegion, masks: GpuRegion | null, params: SamplingParams) => {
      const logitsAt = layout.logitFloats;
      layout.copies.push({ source: logits, target: 'logits', at: logitsAt, elements: count * V });
      const masksAt = layout.maskWords;
      if (masks) layout.copies.push({ source: masks, target: 'masks', at: masksAt, elements: count * W });
      for (let r = 0; r < count; r++) {
        layout.rows.push({
          logitsOffset: logitsAt + r * V,
          probsOffset: logitsAt + r * V,
          vocab: V,
          maskOffset: masks ? masksAt + r * W : null,
          params,
        });
      }
      layout.logitFloats += count * V;
      if (masks) layout.maskWords += count * W;
    };
    addRows(K * (L + 1), step.targetLogits, step.targetMasks, step.targetSampling);
    addRows(K * L, step.draftLogits, step.draftMasks, step.draftSampling);
    const [key0, key1] = seedKey(step.seed);
    const outcomeOffset = layout.outcomeWords;
    layout.problems.push({
      method: wgslMethodCode(step.method) as number,
      draft_count: K,
      draft_length: L,
      vocab: V,
      probs_offset: probsOffset,
      drafts_offset: draftsAt,
      scratch_offset: layout.scratchFloats,
      out_offset: outcomeOffset,
      key: [key0, key1],
      stream: step.stream,
      first_word: step.firstWord,
      status_offset: statusOffset,
    });
    layout.drafts.set(step.drafts, draftsAt);
    draftsAt += step.drafts.length;
    layout.scratchFloats += V;
    layout.outcomeOffsets.push(outcomeOffset);
    layout.outcomeWords += outcomeWords(L);
  });
  return layout;
}

/**
 * The GPU twin of `verify`: probabilities from logits (probs kernel), then every method's decisions
 * (accept kernel), one workgroup per step. Only the outcomes come back to the CPU.
 */
export class GpuVerifier {
  /** Batches run one after another: each GpuWork holds a device-wide error scope while it is open. */
  private previous: Promise<unknown> = Promise.resolve();

  constructor(private readonly devices: GpuDeviceManager) {}

  async verify(step: GpuVerifyStep): Promise<GpuVerifyOutcome> {
    const [outcome] = await this.verifyBatch([step]);
    return outcome as GpuVerifyOutcome;
  }

  /** Verifies many steps in one submission; steps are grouped by the workgroup size their V calls for. */
  async verifyBatch(steps: readonly GpuVerifyStep[]): Promise<GpuVerifyOutcome[]> {
    steps.forEach((step, index) => validateVerifyStep(step, index));
    const run = this.previous.then(
      () => this.runBatch(steps),
      () => this.runBatch(steps),
    );
    this.previous = run.catch(() => undefined);
    return run;
  }

  private async runBatch(steps: readonly GpuVerifyStep[]): Promise<GpuVerifyOutcome[]> {
    if (steps.length === 0) return [];
    const context = await this.devices.context();
    const groups = new Map<number, number[]>();
    steps.forEach((step, index) => {
      const size = workgroupSizeFor(context, step.V);
      groups.set(size, [...(groups.get(size) ?? []), index]);
    });
    const work = new GpuWork(context, 'verify');
    const pending = [...groups].map(([workgroupSize, indices]) => {
      const layout = layOut(indices.map((index) => steps[index] as GpuVerifyStep));
      return { indices, layout, outcomes: encodeGroup(work, layout, indices.length, workgroupSize) };
    });
    const data = await work.finish(
      pending.map(({ layout, outcomes }) => ({ buffer: outcomes, bytes: layout.outcomeWords * 4 })),
    );
    const results: GpuVerifyOutcome[] = new Array<GpuVerifyOutcome>(steps.length);
    pending.forEach(({ indices, layout }, group) => {
      const words = new Uint32Array(data[group] as ArrayBuffer);
      indices.forEach((index, position) => {
        results[index] = readOutcome(
          words,
          layout.outcomeOffsets[position] as number,
          steps[index] as GpuVerifyStep,
          index,
        );
      });
    });
    return results;
  }
}

/** Records the gather copies, the probs kernel and the accept kernel for one group of steps. */
function encodeGroup(work: GpuWork, layout: Layout, stepCount: number, workgroupSize: number): GPUBuffer {
  const { context } = work;
  checkDispatch(context, 'accept', `${stepCount} steps`, stepCount);
  checkBindingSize(
    context,
    'probs',
    `${layout.rows.length} rows of logits (${layout.logitFloats} floats)`,
    layout.logitFloats * 4,
  );
  checkBindingSize(context, 'accept', `scratch rows (${layout.scratchFloats} floats)`, layout.scratchFloats * 4);
  const logits = work.storage('gathered logits', layout.logitFloats * 4);
  const masks = layout.maskWords > 0 ? work.storage('gathered masks', layout.maskWords * 4) : null;
  for (const copy of layout.copies) {
    const target = copy.target === 'logits' ? logits : (masks as GPUBuffer);
    work.encoder.copyBufferToBuffer(copy.source.buffer, copy.source.offset * 4, target, copy.at * 4, copy.elements * 4);
  }
  const probs = work.storage('probs', layout.logitFloats * 4);
  const rowStatus = work.storage('row status', layout.rows.length * 4);
  encodeProbs(work, { rows: layout.rows, logits, masks, probs, status: rowStatus });
  const outcomes = work.storage('outcomes', layout.outcomeWords * 4);
  work.dispatch(
    acceptProgram,
    [
      work.upload('problems', encodeRecords(PROBLEM_RECORD, layout.problems)),
      probs,
      work.upload('drafts', layout.drafts),
      rowStatus,
      work.storage('scratch', layout.scratchFloats * 4),
      outcomes,
    ],
    stepCount,
    workgroupSize,
  );
  return outcomes;
}

function readOutcome(words: Uint32Array, at: number, step: GpuVerifyStep, index: number): GpuVerifyOutcome {
  const status = words[at] as number;
  if (status !== 0) {
    throw new GpuInputError(
      `verify step ${index}: ${OUTCOME_STATUS[status] ?? `status ${status}`} (${describeRows(step)})`,
    );
  }
  const accepted = words[at + 2] as number;
  const outcome: GpuVerifyOutcome = {
    draft: words[at + 1] as number,
    accepted,
    wordsUsed: words[at + 3] as number,
    tokens: Int32Array.from(words.subarray(at + OUTCOME_HEADER_WORDS, at + OUTCOME_HEADER_WORDS + accepted + 1)),
  };
  const traceAt = at + OUTCOME_HEADER_WORDS + step.L + 1;
  const start = words[traceAt] as number;
  if (start !== NO_INDEX) {
    const n = step.L - start;
    const scalars = new Float32Array(words.buffer, words.byteOffset + (traceAt + 1) * 4, 3 * (step.L + 1));
    const pick = (offset: number) => Float64Array.from({ length: n + 1 }, (_, i) => scalars[3 * i + offset] as number);
    outcome.trace = { start, weights: pick(0), masses: pick(1), stops: pick(2) };
  }
  return outcome;
}

function describeRows(step: GpuVerifyStep): string {
  return `K=${step.K} L=${step.L} V=${step.V}; row failures are one of: ${PROB_ROW_STATUS.slice(1).join('; ')}`;
}

import { maskWordCount, validateSamplingParams, type SamplingParams } from '../../core/sampling';
import type { GpuContext } from '../device';
import { encodeRecords } from '../records';
import { PROBS, PROB_ROW_RECORD, composeWgsl } from '../shaders';
import {
  GpuInputError,
  GpuWork,
  checkBindingSize,
  checkDispatch,
  workgroupSizeFor,
  type KernelProgram,
} from '../kernel';

/** CPU twin: logitsToProbs in src/core/sampling.ts. */
export const probsProgram: KernelProgram = {
  name: 'probs',
  code: composeWgsl(PROBS),
  entryPoint: 'main',
  workgroupSize: 256,
  sizeIsOverridable: true,
};

export const PROB_ROW_STATUS = ['ok', 'every token is masked out', 'a logit is NaN or +Infinity'] as const;
const NO_INDEX = 0xffffffff;

export interface ProbRowSpec {
  /** Float index of the row's first logit in the logits buffer. */
  logitsOffset: number;
  /** Float index of the row's first probability in the output buffer. */
  probsOffset: number;
  vocab: number;
  /** Word index of the row's mask in the masks buffer, or null for no mask. */
  maskOffset: number | null;
  params: SamplingParams;
}

export interface ProbsInputs {
  rows: readonly ProbRowSpec[];
  logits: GPUBuffer;
  /** Packed xgrammar bitmasks (int32 words), or null when no row is masked. */
  masks: GPUBuffer | null;
  probs: GPUBuffer;
  /** One u32 per row: an index into PROB_ROW_STATUS. */
  status: GPUBuffer;
}

export function validateProbsInputs(context: GpuContext, inputs: ProbsInputs): void {
  const floats = (buffer: GPUBuffer) => buffer.size / 4;
  if (inputs.rows.length === 0) throw new GpuInputError('probs: no rows to compute');
  checkDispatch(context, 'probs', `${inputs.rows.length} rows`, inputs.rows.length);
  checkBindingSize(context, 'probs', 'the row table', inputs.rows.length * PROB_ROW_RECORD.words * 4);
  for (const buffer of [inputs.logits, inputs.probs, inputs.masks, inputs.status]) {
    if (buffer) checkBindingSize(context, 'probs', `buffer '${buffer.label}'`, buffer.size);
  }
  if (floats(inputs.status) < inputs.rows.length)
    throw new GpuInputError('probs: the status buffer has fewer words than rows');
  inputs.rows.forEach((row, index) => {
    const where = `probs: row ${index}`;
    if (!(Number.isInteger(row.vocab) && row.vocab >= 1))
      throw new GpuInputError(`${where}: vocab must be a positive integer, got ${row.vocab}`);
    if (row.logitsOffset + row.vocab > floats(inputs.logits)) {
      throw new GpuInputError(
        `${where}: logits [${row.logitsOffset}, ${row.logitsOffset + row.vocab}) lie past the buffer's ${floats(inputs.logits)} floats`,
      );
    }
    if (row.probsOffset + row.vocab > floats(inputs.probs)) {
      throw new GpuInputError(
        `${where}: probs [${row.probsOffset}, ${row.probsOffset + row.vocab}) lie past the buffer's ${floats(inputs.probs)} floats`,
      );
    }
    if (row.maskOffset !== null) {
      if (!inputs.masks) throw new GpuInputError(`${where}: has a mask offset but no masks buffer was given`);
      if (row.maskOffset + maskWordCount(row.vocab) > floats(inputs.masks)) {
        throw new GpuInputError(`${where}: its mask lies past the masks buffer's ${floats(inputs.masks)} words`);
      }
    }
    try {
      validateSamplingParams(row.params);
    } catch (error) {
      throw new GpuInputError(`${where}: ${(error as Error).message}`);
    }
  });
}

function rowTable(rows: readonly ProbRowSpec[]): ArrayBuffer {
  return encodeRecords(
    PROB_ROW_RECORD,
    rows.map((row, i) => ({
      logits_offset: row.logitsOffset,
      probs_offset: row.probsOffset,
      vocab: row.vocab,
      mask_offset: row.maskOffset ?? NO_INDEX,
      temperature: row.params.temperature,
      top_k: row.params.topK ?? 0,
      top_p: row.params.topP ?? 1,
      status_index: i,
    })),
  );
}

/** Records the probs kernel: one workgroup per row, sized for the widest row. */
export function encodeProbs(work: GpuWork, inputs: ProbsInputs): void {
  validateProbsInputs(work.context, inputs);
  const rows = work.upload('probs rows', rowTable(inputs.rows));
  const masks = inputs.masks ?? work.storage('no masks', 4);
  const widest = inputs.rows.reduce((most, row) => Math.max(most, row.vocab), 1);
  work.dispatch(
    probsProgram,
    [rows, inputs.logits, masks, inputs.probs, inputs.status],
    inputs.rows.length,
    workgroupSizeFor(work.context, widest),
  );
}

import { describe, expect, it } from 'vitest';
import { createRng, type Rng } from '../../src/core/rng';
import { logitsToProbs, maskWordCount, type SamplingParams } from '../../src/core/sampling';
import type { GpuContext } from '../../src/gpu/device';
import { GpuWork } from '../../src/gpu/kernel';
import { PROB_ROW_STATUS, encodeProbs, type ProbRowSpec } from '../../src/gpu/kernels/probs';
import { suiteDevices } from '../support/gpu';

interface RowCase {
  logits: Float32Array;
  mask: Int32Array | null;
  params: SamplingParams;
}

async function gpuProbs(context: GpuContext, cases: RowCase[]): Promise<{ probs: Float32Array[]; status: string[] }> {
  const logitsLength = cases.reduce((n, c) => n + c.logits.length, 0);
  const masksLength = cases.reduce((n, c) => n + (c.mask?.length ?? 0), 0);
  const logits = new Float32Array(logitsLength);
  const masks = new Uint32Array(Math.max(1, masksLength));
  const rows: ProbRowSpec[] = [];
  let offset = 0;
  let maskOffset = 0;
  for (const c of cases) {
    logits.set(c.logits, offset);
    if (c.mask) masks.set(new Uint32Array(c.mask.buffer), maskOffset);
    rows.push({
      logitsOffset: offset,
      probsOffset: offset,
      vocab: c.logits.length,
      maskOffset: c.mask ? maskOffset : null,
      params: c.params,
    });
    offset += c.logits.length;
    maskOffset += c.mask?.length ?? 0;
  }
  const work = new GpuWork(context, 'probs test');
  const probs = work.storage('probs', logitsLength * 4);
  const status = work.storage('status', cases.length * 4);
  encodeProbs(work, { rows, logits: work.upload('logits', logits), masks: work.upload('masks', masks), probs, status });
  const [probsData, statusData] = await work.finish([
    { buffer: probs, bytes: logitsLength * 4 },
    { buffer: status, bytes: cases.length * 4 },
  ]);
  const all = new Float32Array(probsData as ArrayBuffer);
  return {
    probs: rows.map((row) => all.slice(row.probsOffset, row.probsOffset + row.vocab)),
    status: [...new Uint32Array(statusData as ArrayBuffer)].map((s) => PROB_ROW_STATUS[s] ?? `unknown ${s}`),
  };
}

/** Logits with deliberate exact ties (quantised) and a few banned (−Infinity) entries. */
function randomRow(rng: Rng, V: number, params: SamplingParams, masked: boolean): RowCase {
  const quantum = rng.uniform() < 0.5 ? 0.5 : 1e-3;
  const logits = Float32Array.from({ length: V }, () => Math.round(((rng.uniform() - 0.5) * 8) / quantum) * quantum);
  if (V > 8) logits[Math.floor(rng.uniform() * V)] = -Infinity;
  let mask: Int32Array | null = null;
  if (masked) {
    mask = new Int32Array(maskWordCount(V));
    for (let x = 0; x < V; x++) if (rng.uniform() < 0.6) mask[x >> 5] = (mask[x >> 5] as number) | (1 << (x & 31));
    mask[0] = (mask[0] as number) | 1;
    logits[0] = 0;
  }
  return { logits, mask, params };
}

/** The smallest distance between p and a cumulative mass of the CPU's top-p walk: below ε the cut is a tie. */
function topPMargin(c: RowCase): number {
  if ((c.params.topP ?? 1) >= 1 || c.params.temperature === 0) return Infinity;
  const full = logitsToProbs(c.logits, { ...c.params, topP: 1 }, c.mask ?? undefined);
  const sorted = [...full].filter((p) => p > 0).sort((a, b) => b - a);
  let cumulative = 0;
  let margin = Infinity;
  for (const p of sorted) {
    cumulative += p;
    margin = Math.min(margin, Math.abs(cumulative - (c.params.topP as number)));
  }
  return margin;
}

const TIE_EPSILON = 1e-5;

describe('probs kernel against logitsToProbs (Node, Dawn on SwiftShader)', () => {
  const devices = suiteDevices();

  it('matches the CPU twin on random rows: same support, probabilities within 2e-6', async () => {
    const rng = createRng(17);
    const cases: RowCase[] = [];
    for (const V of [8, 33, 100, 1000, 4096]) {
      for (const temperature of [0, 0.3, 1, 1.5]) {
        for (const [topK, topP] of [
          [0, 1],
          [5, 1],
          [0, 0.9],
          [50, 0.5],
          [1, 1],
        ] as const) {
          for (const masked of [false, true]) cases.push(randomRow(rng, V, { temperature, topK, topP }, masked));
        }
      }
    }
    const { probs, status } = await gpuProbs(await devices.context(), cases);
    let ties = 0;
    cases.forEach((c, i) => {
      expect(status[i]).toBe('ok');
      const expected = logitsToProbs(c.logits, c.params, c.mask ?? undefined);
      const actual = probs[i] as Float32Array;
      if (topPMargin(c) < TIE_EPSILON) {
        ties++;
        return;
      }
      for (let x = 0; x < expected.length; x++) {
        expect((actual[x] as number) > 0, `row ${i} token ${x} support`).toBe((expected[x] as number) > 0);
        expect(Math.abs((actual[x] as number) - (expected[x] as number)), `row ${i} token ${x}`).toBeLessThan(2e-6);
      }
    });
    console.info(`probs: ${cases.length} rows, ${ties} top-p boundary ties within ${TIE_EPSILON}`);
    expect(ties).toBeLessThan(cases.length / 20);
  });

  it('reports an all-masked row and a NaN logit per row, like the CPU twin throws', async () => {
    const { status } = await gpuProbs(await devices.context(), [
      { logits: Float32Array.of(1, 2, 3), mask: new Int32Array(1), params: { temperature: 1 } },
      { logits: Float32Array.of(1, NaN, 3), mask: null, params: { temperature: 1 } },
      { logits: Float32Array.of(-Infinity, -Infinity), mask: null, params: { temperature: 1 } },
      { logits: Float32Array.of(1, 2), mask: null, params: { temperature: 1 } },
    ]);
    expect(status).toEqual([
      'every token is masked out',
      'a logit is NaN or +Infinity',
      'every token is masked out',
      'ok',
    ]);
  });

  it('names the problem in bad input', async () => {
    const work = new GpuWork(await devices.context(), 'bad probs');
    const buffer = work.storage('logits', 16);
    const row = { logitsOffset: 0, probsOffset: 0, vocab: 4, maskOffset: null, params: { temperature: 1 } };
    const inputs = { logits: buffer, masks: null, probs: buffer, status: buffer };
    expect(() => encodeProbs(work, { ...inputs, rows: [{ ...row, logitsOffset: 4096 }] })).toThrow(
      /row 0: logits \[4096, 4100\) lie past/,
    );
    expect(() => encodeProbs(work, { ...inputs, rows: [{ ...row, params: { temperature: -1 } }] })).toThrow(
      /row 0: temperature/,
    );
    expect(() => encodeProbs(work, { ...inputs, rows: [{ ...row, maskOffset: 0 }] })).toThrow(/no masks buffer/);
  });
});

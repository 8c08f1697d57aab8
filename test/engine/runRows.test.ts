import { describe, expect, it } from 'vitest';
import { RunRows } from '../../src/engine/draftBlock';

describe('RunRows', () => {
  it('hands each step exactly its length, from one buffer while steps are no longer than the longest so far', () => {
    const rows = new RunRows();
    const first = rows.f64('targetProbs', 30);
    expect(first.length).toBe(30);
    // A shorter step (a copy or jump-forward span) reads the same memory, cut to its length.
    const shorter = rows.f64('targetProbs', 12);
    expect(shorter.length).toBe(12);
    expect(shorter.buffer).toBe(first.buffer);
    // A longer one gets a new buffer; each name keeps its own.
    const longer = rows.f64('targetProbs', 45);
    expect(longer.length).toBe(45);
    expect(longer.buffer).not.toBe(first.buffer);
    expect(rows.f64('draftProbs', 12).buffer).not.toBe(longer.buffer);
    const logits = rows.f32('draftLogits', 20);
    expect(logits).toBeInstanceOf(Float32Array);
    expect(rows.f32('draftLogits', 8).buffer).toBe(logits.buffer);
    expect(rows.f32('draftLogits', 8).length).toBe(8);
  });
});

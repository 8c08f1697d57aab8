/** The method registry: every id, label, shortcut and WGSL code is unique, and what derives from it agrees. */
import { describe, expect, it } from 'vitest';
import { DECODE_METHODS, decodeMethodInfo, describeK, isBaseline, reportedK } from '../../../src/contract/runParams';
import {
  GPU_VERIFIER_IDS,
  METHOD_IDS,
  METHOD_REGISTRY,
  VERIFIER_IDS,
  VERIFIERS,
  draftsUsed,
  wgslMethodCode,
  wgslMethodConstant,
} from '../../../src/core/verify';

const entries = Object.entries(METHOD_REGISTRY);

describe('the method registry', () => {
  it('gives every method a distinct label and WGSL code, and every offered method a distinct shortcut', () => {
    const labels = DECODE_METHODS.map((method) => decodeMethodInfo(method).label);
    expect(new Set(labels).size).toBe(DECODE_METHODS.length);
    const shortcuts = DECODE_METHODS.map((method) => decodeMethodInfo(method).shortcut);
    expect(new Set(shortcuts).size).toBe(DECODE_METHODS.length);
    for (const shortcut of shortcuts) expect(shortcut).toMatch(/^\S$/);
    const codes = GPU_VERIFIER_IDS.map(wgslMethodCode);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(Number.isInteger(code) && (code as number) >= 0).toBe(true);
  });

  it('derives the id lists: the app offers the methods with a shortcut, the GPU the ones with a WGSL code', () => {
    expect(VERIFIER_IDS).toEqual(entries.map(([id]) => id));
    expect(METHOD_IDS).toEqual(entries.filter(([, entry]) => entry.shortcut !== null).map(([id]) => id));
    expect(GPU_VERIFIER_IDS).toEqual(entries.filter(([, entry]) => entry.wgslCode !== null).map(([id]) => id));
    expect(DECODE_METHODS).toEqual(['ar', 'ar+jump-forward', ...METHOD_IDS]);
    for (const id of VERIFIER_IDS) expect(VERIFIERS[id]).toBe(METHOD_REGISTRY[id].verify);
  });

  it('names each WGSL case after its id', () => {
    expect(wgslMethodConstant('spectr-gbv')).toBe('METHOD_SPECTR_GBV');
    expect(wgslMethodConstant('tokenwise')).toBe('METHOD_TOKENWISE');
  });

  it.each([1, 2, 5, 8])('at K = %i, single-draft methods read one draft and report K = 1', (K) => {
    for (const id of VERIFIER_IDS) expect(draftsUsed(id, K), id).toBe(METHOD_REGISTRY[id].drafts === 'one' ? 1 : K);
    for (const method of DECODE_METHODS)
      expect(reportedK(method, K), method).toBe(isBaseline(method) ? K : draftsUsed(method, K));
  });

  it('says why a reported K differs from the K asked for', () => {
    expect(describeK('gbv', 3)).toBe('K = 1 (GBV uses one draft)');
    expect(describeK('gbv', 1)).toBe('K = 1');
    expect(describeK('spectr', 3)).toBe('K = 3');
    expect(describeK('ar', 3)).toBe('no drafts (autoregressive)');
  });
});

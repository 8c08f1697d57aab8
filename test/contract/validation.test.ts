import { describe, expect, it } from 'vitest';
import { LIMITS, type LimitedParam } from '../../src/contract/limits';
import { checkNumber, modelDirectoryUrl, parseNumber, validateRunParams } from '../../src/contract/validation';
import { findPreset, presetParams } from '../../src/contract/runParams';
import { decodeShare, encodeShare } from '../../src/store/shareUrl';

const good = presetParams(findPreset('person'));

describe('the one validation of run parameters', () => {
  it('accepts each range end and refuses just past it, naming the range', () => {
    for (const [name, limit] of Object.entries(LIMITS) as [LimitedParam, (typeof LIMITS)[LimitedParam]][]) {
      const step = limit.integer ? 1 : 0.01;
      expect(checkNumber(name, limit.max), name).toBeNull();
      expect(checkNumber(name, limit.max + step), name).toMatch(
        new RegExp(`^${limit.label} must be .* to ${limit.max}|and at most ${limit.max}`),
      );
      if ('minExclusive' in limit) {
        expect(checkNumber(name, limit.min), name).toMatch(/above 0 and at most 1; got 0$/);
      } else {
        expect(checkNumber(name, limit.min), name).toBeNull();
        expect(checkNumber(name, limit.min - step), name).not.toBeNull();
      }
    }
  });

  it('refuses the values a hostile link carries, without throwing', () => {
    expect(checkNumber('L', 0)).toBe('L draft length must be an integer from 1 to 8; got 0');
    expect(checkNumber('L', 2.5)).toBe('L draft length must be an integer from 1 to 8; got 2.5');
    expect(checkNumber('L', 1e9)).toBe('L draft length must be an integer from 1 to 8; got 1000000000');
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, '3', null, undefined, {}, [], -0.5])
      expect(checkNumber('K', value)).not.toBeNull();
    expect(checkNumber('K', 3)).toBeNull();
  });

  it('reads typed text whole: "2" is 2, but "", "1e", "3 drafts" are refused, not half-read', () => {
    expect(parseNumber('K', '2')).toEqual({ value: 2 });
    expect(parseNumber('temperature', ' 0.7 ')).toEqual({ value: 0.7 });
    expect(parseNumber('K', '')).toEqual({ error: 'K drafts must be an integer from 1 to 8; got ""' });
    expect(parseNumber('K', '1e')).toMatchObject({ error: expect.stringMatching(/got "1e"$/) });
    expect(parseNumber('K', '3 drafts')).toMatchObject({ error: expect.stringMatching(/got "3 drafts"$/) });
    expect(parseNumber('K', '100')).toEqual({ error: 'K drafts must be an integer from 1 to 8; got 100' });
    expect(parseNumber('temperature', '-1')).toEqual({ error: 'Temperature must be a number from 0 to 2; got -1' });
  });

  it('checks a whole run and reports every bad field at once', () => {
    expect(validateRunParams(good)).toEqual({ ok: true, params: good });
    const result = validateRunParams({
      ...good,
      K: 0,
      L: 1e9,
      method: 'fastest',
      drafting: 'maybe',
      prompt: '',
      maxTokens: 100_000,
      topP: 0,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.keys(result.errors).sort()).toEqual(['K', 'L', 'drafting', 'maxTokens', 'method', 'prompt', 'topP']);
    expect(result.errors.maxTokens).toBe('Max tokens must be an integer from 1 to 512; got 100000');
    expect(result.errors.topP).toBe('Top-p must be a number above 0 and at most 1; got 0');
    expect(result.errors.prompt).toBe('the prompt is empty');
    expect(validateRunParams({ ...good, schemaText: 42 as unknown as string })).toMatchObject({
      ok: false,
      errors: { schemaText: expect.any(String) },
    });
    expect(validateRunParams({})).toMatchObject({ ok: false });
  });

  it('refuses a model address that is not an absolute web URL, before any fetch', () => {
    expect(modelDirectoryUrl('hello')).toMatchObject({
      error: expect.stringMatching(/^"hello" is not a URL: give the full address of a model directory/),
    });
    expect(modelDirectoryUrl('ftp://example.com/m/')).toMatchObject({
      error: 'ftp://example.com/m/ is not a web address (http:// or https://)',
    });
    expect(modelDirectoryUrl(' https://huggingface.co/x/y/resolve/main/ ')).toMatchObject({
      url: new URL('https://huggingface.co/x/y/resolve/main/'),
    });
  });

  it('reads numbers in decimal only (0x3, 0b11, 0o3 are refused, in the form and in a link), refuses a prompt of spaces, and never repeats a password', () => {
    for (const text of ['0x3', '0b11', '0o3', 'Infinity'])
      expect(parseNumber('K', text), text).toEqual({
        error: `K drafts must be an integer from 1 to 8; got ${JSON.stringify(text)}`,
      });
    const link = encodeShare({ params: good, preset: 'person' }).replace(/([?&])K=\d+/, '$1K=0x3');
    expect(decodeShare(link, good)).toMatchObject({
      errors: { K: 'the link\'s K: K drafts must be an integer from 1 to 8; got "0x3"' },
      text: { K: '0x3' },
    });
    expect(validateRunParams({ ...good, prompt: ' \t\n ' })).toMatchObject({
      ok: false,
      errors: { prompt: 'the prompt is empty' },
    });
    const withPassword = modelDirectoryUrl('https://user:hunter2@example.com/m/');
    expect(withPassword).toEqual({
      error: 'the address of example.com holds a user name or password (user:password@); give the address without them',
    });
  });

  it('carries the head and copy drafters through a share link (and a talk scene, which is one), and names the drafters on a bad one', () => {
    for (const drafter of ['head', 'head+grammar', 'copy', 'model+copy', 'model+grammar+copy'] as const) {
      const link = encodeShare({ params: { ...good, drafter }, preset: 'person' });
      expect(link).toContain(`drafter=${encodeURIComponent(drafter)}`);
      expect(decodeShare(link, good)).toMatchObject({ params: { drafter } });
    }
    expect(validateRunParams({ ...good, drafter: 'eagle' as never })).toMatchObject({
      ok: false,
      errors: { drafter: expect.stringContaining('head, head+grammar, copy, model+copy, model+grammar+copy') },
    });
  });
});

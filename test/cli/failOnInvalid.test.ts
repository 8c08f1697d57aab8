/** --fail-on-invalid's one-line reasons: generate counts every output, scorecard only the constrained rows. */
import { describe, expect, it } from 'vitest';
import type { CaseScorecardRow, ScorecardRow } from '../../src/contract/bench';
import type { OutputVerdict, RunReport } from '../../src/contract/runReport';
import { invalidOutputs } from '../../tools/cli/generate';
import { invalidRows } from '../../tools/cli/scorecard';

const report = (method: string, verdict: OutputVerdict | null) =>
  ({ params: { method }, verdict }) as unknown as RunReport;
const row = (preset: string, constrained: boolean, card: ScorecardRow['card']) =>
  ({ preset, constrained, card }) as unknown as ScorecardRow;

describe('--fail-on-invalid', () => {
  it('generate: null when every output is valid or free text; otherwise the count and the first reason, cut outputs included', () => {
    expect(invalidOutputs([report('ar', { kind: 'valid' }), report('spectr', null)])).toBeNull();
    expect(
      invalidOutputs([
        report('ar', { kind: 'valid' }),
        report('spectr', { kind: 'truncated', reason: 'max tokens reached mid-JSON: Unexpected end of JSON input' }),
        report('gbv', { kind: 'invalid', reason: 'bad' }),
      ]),
    ).toBe(
      '--fail-on-invalid: 2 of 3 outputs are not schema-valid; first, spectr: truncated: max tokens reached mid-JSON: Unexpected end of JSON input',
    );
  });

  it('scorecard: only constrained rows count, and the line says how many were cut', () => {
    const clean = { completions: 3, valid: 3, invalid: 0, truncated: 0, deadEnds: 0 };
    expect(
      invalidRows([row('person', true, clean), row('person', false, { ...clean, valid: 0, invalid: 3 })]),
    ).toBeNull();
    expect(invalidRows([row('person', true, { ...clean, valid: 1, truncated: 2 })])).toBe(
      '--fail-on-invalid: constrained outputs not schema-valid: person 1/3 valid (0 invalid, 2 cut short, 0 dead ends)',
    );
    // A case file's row is named by its bucket and line.
    const caseRow = {
      bucket: 'nested-json',
      caseLine: 4,
      constrained: true,
      card: { ...clean, valid: 2, invalid: 1 },
    } as unknown as CaseScorecardRow;
    expect(invalidRows([caseRow])).toBe(
      '--fail-on-invalid: constrained outputs not schema-valid: nested-json line 4 2/3 valid (1 invalid, 0 cut short, 0 dead ends)',
    );
  });
});

/**
 * A trapped grammar engine, end to end on the bundled pair with the real xgrammar wasm: the trap comes back
 * from a run as the error the worker words and follows with 'engine-trapped'; in its realm xgrammar stays
 * corrupt (a preset fails, and so does a new engine), which is why the page replaces the worker; and a fresh
 * worker's modules (here: the module graph evaluated afresh) run the next preset to the end, schema-valid.
 */
import { describe, expect, it, vi } from 'vitest';
import { findPreset, presetParams } from '../../src/contract/runParams';
import { SpecEngine } from '../../src/engine/engine';
import { errorText, trapEvent } from '../../src/engine/failures';
import { ajvValidator } from '../support/ajvValidator';
import { bundledPair } from '../support/models';

/** The schema checks refuse what is known to trap xgrammar; this test lets one through to make it trap for real. */
const schemaChecks = vi.hoisted(() => ({ skipped: false }));
vi.mock('../../src/grammar/schema', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/grammar/schema')>();
  return { ...actual, checkSchema: (schema: unknown) => (schemaChecks.skipped ? [] : actual.checkSchema(schema)) };
});

/** A 10 KB regex of 5,000 nested groups: xgrammar's parser overflows its stack, leaving its wasm memory corrupt. */
const TRAPPING_SCHEMA = JSON.stringify({
  type: 'object',
  properties: { x: { type: 'string', pattern: `${'('.repeat(5000)}a${')'.repeat(5000)}` } },
  required: ['x'],
});

describe('a trapped grammar engine, with the real xgrammar wasm', () => {
  it('is reported as a trap, stays broken in its realm, and a fresh worker’s engine runs the next preset to the end, schema-valid', async () => {
    const pair = await bundledPair();
    const preset = presetParams(findPreset('sentiment'));
    const engine = SpecEngine.create(pair, ajvValidator);
    schemaChecks.skipped = true;
    const trap = await engine.run({ ...preset, schemaText: TRAPPING_SCHEMA }).then(
      () => null,
      (error: unknown) => error,
    );
    schemaChecks.skipped = false;
    // What the worker posts: the run's error, saying the engine restarts, then the event that makes the page replace it.
    expect(errorText(trap)).toMatch(
      /^xgrammar crashed on the schema \(.*Maximum call stack size exceeded.*\)\. The grammar engine is restarted and the models reload; then the next run works\.$/,
    );
    expect(trapEvent(trap)).toEqual({ type: 'engine-trapped' });
    expect(trapEvent(new Error('the prompt is empty'))).toBeNull();

    // In this realm the wasm stays corrupt: the preset fails, and so does a new engine on the same xgrammar.
    await expect(engine.run(preset)).rejects.toThrow(/memory access out of bounds/);
    await expect(SpecEngine.create(pair, ajvValidator).run(preset)).rejects.toThrow(/memory access out of bounds/);

    // A fresh worker evaluates its modules afresh, xgrammar's wasm included (the page also reloads the pair; this reuses it).
    vi.resetModules();
    const fresh = await import('../../src/engine/engine');
    const recovered = fresh.SpecEngine.create(pair, ajvValidator);
    const report = await recovered.run(preset);
    expect(report.ending).toBe('stopped');
    expect(report.verdict).toEqual({ kind: 'valid' });
    recovered.dispose();
  });
});

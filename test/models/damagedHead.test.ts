/**
 * A damaged draft head beside the bundled pair (hostile round four): a truncated file or NaN weights used to break every
 * tool, `generate --preset person` with the default drafter included. The pair now loads without the head,
 * its drafters say why in one line, and the other drafters run to the end.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findPreset, presetParams } from '../../src/contract/runParams';
import { BUNDLED_DRAFT_DIR, BUNDLED_HEAD_DIR, BUNDLED_TARGET_DIR, loadPairAt } from '../../tools/bundled';
import { setupNodeEngine } from '../../tools/nodeEngine';
import { damagedCopy } from '../support/damagedModel';

/** A copy of the bundled head whose model file lost its second half (the manifest untouched). */
function truncatedHead(): string {
  const copy = join(mkdtempSync(join(tmpdir(), 'speclab-head-')), 'head');
  cpSync(BUNDLED_HEAD_DIR, copy, { recursive: true });
  const path = join(copy, 'onnx/model.onnx');
  const bytes = readFileSync(path);
  writeFileSync(path, bytes.subarray(0, bytes.length >> 1));
  return copy;
}

describe('a damaged draft head', () => {
  it.each([
    [
      'truncated to half its size',
      truncatedHead,
      /^the draft head did not load: speclab-head\/onnx\/model\.onnx: sha256 [0-9a-f]{64} does not match/,
    ],
    [
      'with a NaN in its weights (sha256 recomputed)',
      () => damagedCopy(BUNDLED_HEAD_DIR, 'fc_in.weight_t.f16'),
      /^the draft head did not load: the draft head's logits are not finite: the model file is damaged$/,
    ],
  ])(
    '%s: the pair loads without it, the default drafter runs to a valid end, and the head drafters say why in one line',
    async (_, copy, reason) => {
      const pair = await loadPairAt({ draft: BUNDLED_DRAFT_DIR, target: BUNDLED_TARGET_DIR, head: copy() });
      expect(pair.head).toBeNull();
      expect(pair.headError).toMatch(reason);
      expect(pair.headError).not.toContain('\n');
      const setup = await setupNodeEngine('cpu', pair);
      try {
        const params = presetParams(findPreset('person'), { maxTokens: 48 });
        const report = await setup.engine.run(params);
        expect(report.verdict?.kind).toBe('valid');
        expect(setup.engine.headUnavailable).toBe(pair.headError);
        await expect(setup.engine.run({ ...params, drafter: 'head' })).rejects.toThrow(
          `drafter head: ${pair.headError}`,
        );
      } finally {
        await setup.dispose();
      }
    },
  );
});

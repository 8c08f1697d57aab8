/**
 * `--pair <draft>,<target>`: a local directory or an http(s) URL in the Hub layout for each model, checked
 * before anything loads (one line, exit 2, through the shared parser), and a local pair that loads: the
 * bundled pair's own folders under public/models.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../tools/cli/args';
import { main as generate } from '../../tools/cli/generate';
import { loadPairOption, parsePairOption } from '../../tools/cli/pair';
import { refusal } from '../support/cliRefusal';
import { damagedCopy } from '../support/damagedModel';

const DRAFT = 'public/models/speclab-draft';
const TARGET = 'public/models/speclab-target-int8';

describe('--pair', () => {
  it.each([
    [DRAFT, '--pair must be <draft>,<target> (two directories or URLs), got "public/models/speclab-draft"'],
    [`${DRAFT},${TARGET},${TARGET}`, /^--pair must be <draft>,<target>/],
    [`,${TARGET}`, /^--pair must be <draft>,<target>/],
    [
      `${DRAFT},public/models/nothing-here`,
      '--pair: the target "public/models/nothing-here" is neither a directory nor an http(s) URL',
    ],
    [
      `public/models/speclab-tokenizer,${TARGET}`,
      '--pair: the draft directory "public/models/speclab-tokenizer" has no onnx/model.onnx (a model directory in the Hub layout has tokenizer.json and onnx/model.onnx)',
    ],
    [`${DRAFT},ftp://example.com/target/`, '--pair: the target URL must be http or https, got ftp:'],
    [`${DRAFT},http://[::1`, '--pair: the target "http://[::1" is not a valid URL'],
  ] as [string, string | RegExp][])('refuses %j in one line', (text, expected) => {
    expect(() => parsePairOption(text)).toThrow(UsageError);
    expect(() => parsePairOption(text)).toThrow(expected);
  });

  it('takes local directories and http(s) URLs, and loads a local pair in the Hub layout', async () => {
    expect(parsePairOption(` ${DRAFT} , https://huggingface.co/org/target/resolve/main/`)).toEqual({
      draft: DRAFT,
      target: 'https://huggingface.co/org/target/resolve/main/',
    });
    const pair = await loadPairOption(parsePairOption(`${DRAFT},${TARGET}`));
    try {
      expect([pair.draft.name, pair.target.name]).toEqual(['speclab-draft', 'speclab-target-int8']);
      expect(pair.draft.session.shape.vocab).toBe(pair.target.session.shape.vocab);
    } finally {
      await pair.draft.session.release();
      await pair.target.session.release();
    }
  });

  // `"stop_token": "constructor"` once ended the CLI with exit 1 and a stack trace (vocab[stop] found Object).
  it('refuses a draft whose manifest names an inherited name as its stop token: exit 2, one line', async () => {
    const copy = damagedCopy(DRAFT, 'token_embedding.weight', 0.5, { stop_token: 'constructor' });
    expect(await refusal(generate, ['--preset', 'person', '--pair', `${copy},${TARGET}`])).toBe(
      `generate: the pair ${copy} → ${TARGET} did not load: speclab-draft/tokenizer.json: the tokenizer has no stop token "constructor", so generation could never end`,
    );
    vi.restoreAllMocks();
  });

  // A NaN in the draft's weights once loaded as "loaded" and ended the CLI with "RangeError: logit of token 0 is NaN", exit 1.
  describe('a draft with a NaN in its weights (its manifest hash recomputed, so only the numbers tell)', () => {
    afterEach(() => {
      vi.restoreAllMocks();
    });
    const damaged = damagedCopy(DRAFT, 'token_embedding.weight');

    it('is refused at load with one clear message, and generate exits 2 with one line', async () => {
      await expect(loadPairOption(parsePairOption(`${damaged},${TARGET}`))).rejects.toThrow(
        `the pair ${damaged} → ${TARGET} did not load: the draft's logits are not finite: the model file is damaged`,
      );
      expect(await refusal(generate, ['--preset', 'person', '--pair', `${damaged},${TARGET}`])).toBe(
        `generate: the pair ${damaged} → ${TARGET} did not load: the draft's logits are not finite: the model file is damaged`,
      );
    });
  });
});

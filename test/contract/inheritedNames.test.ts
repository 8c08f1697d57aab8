/**
 * Names from outside never reach an object's prototype (src/contract/ownKeys.ts): every field that takes a
 * name from a link, a talk, an embed, a manifest's tokenizer, a schema, a scrape, a stored record or a CLI
 * option is fed each inherited name, and each ends in its clear one-line message (or, where the name is
 * allowed, as an ordinary name). `pair=toString` once blanked the app; `stop_token: "constructor"` once ended
 * the CLI with a stack trace.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hasOwnKey, ownValue } from '../../src/contract/ownKeys';
import { BUNDLED_PAIR_IDS } from '../../src/contract/modelPairs';
import { findPreset, presetParams } from '../../src/contract/runParams';
import { simulate, DEFAULT_SIMULATION } from '../../src/core/simulate';
import { verify, type VerifierId } from '../../src/core/verify';
import { readMetrics, modelReports } from '../../src/core/vllmMetrics';
import { checkSchema } from '../../src/grammar/schema';
import { ModelLoadError } from '../../src/models/manifest';
import { TextTokenizer } from '../../src/models/tokenizer';
import { checkHistoryRecord } from '../../src/store/historyDb';
import { decodeShare } from '../../src/store/shareUrl';
import { parseTalk } from '../../src/store/talk';
import { parseEmbed } from '../../src/ui/embed';
import { main as bench } from '../../tools/cli/bench';
import { main as generate } from '../../tools/cli/generate';
import { refusal } from '../support/cliRefusal';
import { goodReport } from '../support/runReports';

const INHERITED = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf'] as const;
const fallback = presetParams(findPreset('person'));
const talk = (scene: Record<string, unknown>) =>
  JSON.stringify({ format: 'speclab-talk', version: 1, scenes: [{ run: {}, ...scene }] });

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(INHERITED)('the inherited name %s', (name) => {
  it('is no own key of a lookup table', () => {
    expect(hasOwnKey(BUNDLED_PAIR_IDS, name)).toBe(false);
    expect(ownValue(BUNDLED_PAIR_IDS, name)).toBeUndefined();
    expect(ownValue({ [name]: 7 }, name)).toBe(7);
  });

  it("in a share link's pair, runtime, method, drafting, drafter or preset is that field's message", () => {
    const decode = (query: string) => decodeShare(`#run?${query}`, fallback);
    expect(decode(`pair=${name}`)?.setupError).toBe(`the link's pair "${name}" is not one of bundled, bundled-float32`);
    expect(decode(`runtime=${name}`)?.setupError).toBe(`the link's runtime "${name}" is not one of auto, wasm, webgpu`);
    expect(decode(`method=${name}`)?.errors.method).toMatch(
      new RegExp(`^the link's method: unknown method "${name}"; use one of `),
    );
    expect(decode(`drafting=${name}`)?.errors.drafting).toBe(
      `the link's drafting: drafting must be validate or constrained; got "${name}"`,
    );
    expect(decode(`drafter=${name}`)?.errors.drafter).toMatch(
      new RegExp(`^the link's drafter: drafter must be one of .*; got "${name}"$`),
    );
    expect(decode(`preset=${name}`)?.errors.schemaText).toMatch(
      new RegExp(`^the link names an unknown preset "${name}"; the presets are `),
    );
  });

  it("in a talk scene's pair, provider, view or run is the talk's message", () => {
    expect(parseTalk(talk({ pair: name }))).toEqual({
      error: 'This talk file cannot be used: scene 1: "pair" must be one of bundled, bundled-float32.',
    });
    expect(parseTalk(talk({ provider: name }))).toEqual({
      error: 'This talk file cannot be used: scene 1: "provider" must be one of auto, wasm, webgpu.',
    });
    expect(parseTalk(talk({ view: name }))).toMatchObject({
      error: expect.stringMatching(/^This talk file cannot be used: scene 1: "view" must be one of output, /),
    });
    expect(parseTalk(talk({ run: { method: name } }))).toMatchObject({
      error: expect.stringContaining(`the run's method: unknown method "${name}"`),
    });
  });

  it("in an embed's view is the list of views", () => {
    expect(parseEmbed(`?view=${name}`, true)).toEqual({
      error: expect.stringMatching(new RegExp(`^\\?view=${name} is not a view; the views are output, `)),
    });
  });

  it("as a manifest's stop_token is the tokenizer's message", () => {
    const json = { model: { type: 'WordLevel', vocab: { a: 0, b: 1 }, unk_token: 'a' }, added_tokens: [] };
    expect(() => TextTokenizer.fromJson(json, 'tokenizer.json', name)).toThrow(ModelLoadError);
    expect(() => TextTokenizer.fromJson(json, 'tokenizer.json', name)).toThrow(
      `tokenizer.json: the tokenizer has no stop token "${name}", so generation could never end`,
    );
  });

  it('as a preset, a verification method or a simulated method is refused by name', () => {
    expect(() => findPreset(name)).toThrow(new RegExp(`^unknown preset "${name}"; the presets are `));
    expect(() =>
      verify(
        name as VerifierId,
        { K: 1, L: 1, V: 2, drafts: [0], draftProbs: new Float32Array(2), targetProbs: new Float32Array(4) } as never,
        null as never,
      ),
    ).toThrow(`unknown verification method '${name}'`);
    expect(() => simulate({ ...DEFAULT_SIMULATION, methods: [name as VerifierId] })).toThrow(
      `unknown method '${name}'`,
    );
  });

  it("in a stored history record's method or drafter drops the record with its reason", () => {
    const good = goodReport();
    expect(
      checkHistoryRecord({ id: 'a', finishedAt: 1, report: { ...good, params: { ...good.params, method: name } } }),
    ).toEqual({
      error: expect.stringMatching(new RegExp(`^"a": the run parameters are invalid \\(.*unknown method "${name}"`)),
    });
    expect(
      checkHistoryRecord({ id: 'a', finishedAt: 1, report: { ...good, params: { ...good.params, drafter: name } } }),
    ).toEqual({ error: expect.stringMatching(new RegExp(`^"a": the run parameters are invalid \\(.*got "${name}"`)) });
    expect(checkHistoryRecord({ id: 'a', finishedAt: 1, report: { ...good, verdict: { kind: name } } })).toEqual({
      error: '"a": the verdict is not one of valid, invalid, truncated, dead-end',
    });
  });

  it("as a scrape's model name is an ordinary model", () => {
    const scrape = ['num_drafts_total 10', 'num_draft_tokens_total 30', 'num_accepted_tokens_total 12']
      .map((line) => `vllm:spec_decode_${line.replace(' ', `{model_name="${name}"} `)}\n`)
      .join('');
    const reports = modelReports(readMetrics(scrape));
    expect(reports.map((entry) => entry.model)).toEqual([name]);
    expect(reports[0]?.report.num_drafts).toBe(10);
  });

  it("as a schema's property name is an ordinary property (__proto__ is refused by name)", () => {
    const schema = JSON.parse(
      `{"type":"object","properties":{"${name}":{"type":"integer","minimum":0}},"required":["${name}"]}`,
    ) as unknown;
    if (name === '__proto__')
      expect(() => checkSchema(schema)).toThrow(
        '$.properties: the property name "__proto__" is not allowed: an object built from the schema would take it as its prototype',
      );
    else expect(checkSchema(schema)).toEqual([]);
  });

  it('in the CLIs --preset, --method and --drafter is one line, exit 2', async () => {
    expect(await refusal(generate, ['--preset', name])).toMatch(
      new RegExp(`^generate: --preset: unknown preset "${name}"; the presets are `),
    );
    expect(await refusal(generate, ['--preset', 'person', '--method', name])).toMatch(
      /^generate: --method must be one of ar, /,
    );
    expect(await refusal(generate, ['--preset', 'person', '--drafter', name])).toMatch(
      new RegExp(`^generate: --drafter must be one of model, .*got "${name}"`),
    );
    expect(await refusal(bench, ['--methods', name])).toMatch(
      new RegExp(`^bench: --methods: unknown ${name}; the methods are `),
    );
    expect(await refusal(bench, ['--drafters', name])).toMatch(
      new RegExp(`^bench: --drafters: unknown ${name}; the drafters are `),
    );
    expect(await refusal(generate, [`--${name}`])).toMatch(
      new RegExp(`^generate: Unknown option '--${name}'; see --help$`),
    );
  });
});

/**
 * The engine a caller drives: a loaded model pair, its grammar engine, compiled schemas (cached by text),
 * and `run`, which turns user-level parameters (contract/runParams.ts) into one decode. The browser worker, `npm run generate`
 * and the benchmarks all go through here.
 */
import { exportCounters } from '../core/metrics';
import type { ModelPairHandle } from '../models/loader';
import { GrammarEngine, type CompiledSchema } from '../grammar/engine';
import type { SchemaValidator } from '../grammar/score';
import { presetParams, reportedK, type RunParams } from '../contract/runParams';
import { SCHEMA_PRESETS } from '../contract/presets';
import type { RunReport } from '../contract/runReport';
import type { ScoringPlan, StepRecord } from '../contract/stepRecord';
import { cpuVerifier, type StepVerifier } from '../contract/stepVerifier';
import { decode, validateDecodeOptions } from './decode';
import type { DecodeOptions } from './decodeOptions';
import { CachedPairModels, headUnavailable, scoringPlan, type CachedPairOptions } from './pairModels';
import { usesHead, type DrafterId } from '../core/draftLaw';
import { timed } from '../core/timeline';
import type { TargetThreadClient } from './targetThread';

export interface EngineOptions extends CachedPairOptions {
  /** The target on a thread of its own (targetThread.ts), for the runs that draft ahead: they gain only with it. */
  targetThread?: TargetThreadClient;
}

/** The warm-up's token budget: a few steps at the default K and L, past every first call (SpecEngine.warmUp). */
const WARM_UP_TOKENS = 8;

export class SpecEngine {
  private readonly schemas = new Map<string, Promise<CompiledSchema>>();
  /** Built on first use (or by `prepareGrammar`): the load does not wait for it. */
  private grammar: Promise<GrammarEngine> | null = null;
  /** Parsed once per text: the validators compile once per schema object. */
  private readonly schemaObjects = new Map<string, object>();

  private constructor(
    readonly pair: ModelPairHandle,
    private readonly validate: SchemaValidator,
    readonly verifier: StepVerifier,
    private readonly options: EngineOptions,
  ) {}

  /**
   * `options.logitsInPlace`: the target's logits stay in onnxruntime's GPU buffer for `verifier`, which must
   * then be the WGSL verifier on onnxruntime's device. `options.treeScoring: false` forces the batched path.
   */
  static create(
    pair: ModelPairHandle,
    validate: SchemaValidator,
    verifier: StepVerifier = cpuVerifier,
    options: EngineOptions = {},
  ): SpecEngine {
    return new SpecEngine(pair, validate, verifier, options);
  }

  /** The path the target scores drafts on, and why it is the batched one when it is. */
  get scoring(): ScoringPlan {
    return scoringPlan(this.pair.target.session, this.options.treeScoring);
  }

  /**
   * Starts building the grammar engine (xgrammar's wasm, the tokenizer info and compiler), which only runs
   * with a schema need: the worker calls this right after it reports ready. A failure is reported by the
   * first compile, which waits for it.
   */
  prepareGrammar(): Promise<GrammarEngine> {
    this.grammar ??= timed('grammar engine', () => GrammarEngine.create(this.pair.tokenizer.grammarVocabulary()));
    return this.grammar;
  }

  /** Why this pair cannot draft from a head (shown where drafters are chosen), or null when it can. */
  get headUnavailable(): string | null {
    return headUnavailable(this.pair.target.session, this.pair.head?.session ?? null, this.pair.headError ?? null);
  }

  get contextLength(): number {
    return Math.min(this.pair.draft.contextLength, this.pair.target.contextLength);
  }

  /** Whether `schemaText` was compiled already (or is being compiled), so that a run would not wait on a compile. */
  isCompiled(schemaText: string): boolean {
    return this.schemas.has(schemaText);
  }

  /** Compiles (once per text) or throws a SchemaError naming the problem. */
  compile(schemaText: string): Promise<CompiledSchema> {
    let compiled = this.schemas.get(schemaText);
    if (!compiled) {
      compiled = this.prepareGrammar().then((grammar) => timed('schema compile', () => grammar.compile(schemaText)));
      // A failed compile is not cached: the user fixes the text and tries again.
      compiled.catch(() => this.schemas.delete(schemaText));
      this.schemas.set(schemaText, compiled);
    }
    return compiled;
  }

  private schemaObject(schemaText: string): object {
    let schema = this.schemaObjects.get(schemaText);
    if (!schema) {
      schema = JSON.parse(schemaText) as object;
      this.schemaObjects.set(schemaText, schema);
    }
    return schema;
  }

  /**
   * A short untimed run right after load, on the default method and a preset's prompt (free text: the grammar
   * engine is built later): the first forwards of each model, the first KV-cache gathers and the verifier's first
   * calls pay once-only costs (onnxruntime's kernels and buffers, V8 compiling its wasm and our code) that would
   * otherwise make the first run's tokens/s several times lower than the next one's.
   */
  async warmUp(): Promise<void> {
    await this.run(
      presetParams(SCHEMA_PRESETS[0] as (typeof SCHEMA_PRESETS)[number], {
        schemaText: null,
        maxTokens: WARM_UP_TOKENS,
      }),
    );
  }

  /**
   * Compiles the schema (cached, as a run would) and checks that the prompt leaves room for a step and for the
   * schema's shortest output: a server refuses a request with these before it answers (PromptTooLongError).
   */
  async checkRoom(params: RunParams): Promise<void> {
    const grammar = params.schemaText === null ? null : await this.compile(params.schemaText);
    const prompt = this.pair.tokenizer.encode(params.prompt);
    validateDecodeOptions({ ...params, prompt, structure: grammar && { grammar } }, this.contextLength);
  }

  async run(
    params: RunParams,
    onStep?: (record: StepRecord) => void | Promise<void>,
    signal?: AbortSignal,
    /**
     * Extras a caller asks for: each emitted token's target top-`topTokens` (a server's top_logprobs), the
     * teaching analyses (a page that shows them), and drafting ahead (the bench, with the target on its thread).
     */
    extras: Pick<DecodeOptions, 'topTokens' | 'analyses' | 'draftAhead'> = {},
  ): Promise<RunReport> {
    const { tokenizer } = this.pair;
    const grammar = params.schemaText === null ? null : await this.compile(params.schemaText);
    const schema = params.schemaText === null ? null : this.schemaObject(params.schemaText);
    const started = performance.now();
    // Time spent in onStep (the UI's pause, single-stepping, slow motion) is the presenter's, not the engine's:
    // tokens/s leaves it out, so Step–pause–Resume reads as fast as a straight run.
    let waitedMs = 0;
    const timedOnStep =
      onStep &&
      (async (record: StepRecord) => {
        const before = performance.now();
        await onStep(record);
        waitedMs += performance.now() - before;
      });
    const drafter: DrafterId = params.drafter ?? 'model';
    const head = usesHead(drafter) ? this.pair.head?.session : undefined;
    if (usesHead(drafter) && !head)
      throw new RangeError(`drafter ${drafter}: ${this.headUnavailable ?? 'no draft head'}`);
    const { targetThread, ...pairOptions } = this.options;
    if (extras.draftAhead === true && !targetThread)
      throw new RangeError('drafting ahead needs the target on a thread of its own (the engine has none)');
    // Only a run that drafts ahead uses the target's thread: every other run keeps it here, a hop away from none.
    const target =
      extras.draftAhead === true && targetThread && !head
        ? await targetThread.open(pairOptions.treeScoring ?? true)
        : this.pair.target.session;
    const models = new CachedPairModels(this.pair.draft.session, target, this.contextLength, {
      ...pairOptions,
      ...(head ? { head } : {}),
    });
    const result = await decode(
      models,
      {
        method: params.method,
        K: params.K,
        L: params.L,
        sampling: {
          temperature: params.temperature,
          ...(params.topP === undefined ? {} : { topP: params.topP }),
          ...(params.topK === undefined ? {} : { topK: params.topK }),
        },
        drafting: params.drafting,
        seed: params.seed,
        maxTokens: params.maxTokens,
        prompt: tokenizer.encode(params.prompt),
        structure:
          grammar && schema
            ? {
                grammar,
                schema,
                validate: this.validate,
                ...(params.trigger === undefined ? {} : { trigger: params.trigger }),
              }
            : null,
        detokenize: (tokens) => tokenizer.decode(tokens),
        tokenize: (text) => tokenizer.encode(text),
        drafter,
        stopTokenId: tokenizer.stopTokenId,
        stopTokenIds: tokenizer.stopTokenIds,
        verifier: this.verifier,
        ...(signal ? { signal } : {}),
        ...extras,
      },
      timedOnStep,
    );
    const wallMs = performance.now() - started;
    const generationMs = wallMs - result.timings.analysis - waitedMs;
    return {
      ...result,
      params: { ...params, K: reportedK(params.method, params.K) },
      requestedK: params.K,
      unenforced: grammar?.unenforced ?? [],
      wallMs,
      generationMs,
      tokensPerSecond: result.tokens.length / (generationMs / 1000),
      metrics: exportCounters(result.counters),
    };
  }

  dispose(): void {
    for (const compiled of this.schemas.values())
      void compiled.then(
        (schema) => schema.dispose(),
        () => undefined,
      );
    void this.grammar?.then(
      (grammar) => grammar.dispose(),
      () => undefined,
    );
  }
}

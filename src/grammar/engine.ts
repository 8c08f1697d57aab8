/**
 * The schema → token-mask engine: a small interface over xgrammar (the engine vLLM, SGLang and WebLLM use).
 * This is the only module that imports it. Output layout is fixed to one line with ": " and ", " separators
 * (compileJSONSchema(schema, anyWhitespace = false, indent = -1)); the corpus and prompts must use it too.
 */
// The tap must be installed before xgrammar binds console.error.
import { collectingConsoleErrors } from './consoleTap';
import type * as xgrammarModule from '@mlc-ai/web-xgrammar';
import type { CompiledGrammar, GrammarCompiler, GrammarMatcher, TokenizerInfo } from '@mlc-ai/web-xgrammar';
import { SchemaError, checkSchema, parseSchemaText, shortestOutputBytes } from './schema';
import { planGrammar, substituteRules } from './exactRules';
import { ByteGuard } from './byteGuard';
import type { GrammarVocabulary } from './vocabulary';

/**
 * The UMD bundle's API arrives as named exports (Vite's build and dev server, vitest), or, where neither
 * `exports` nor `module` exists (Vite's SSR module runner, which the Node benchmarks use), only on
 * globalThis.xgrammar.
 */
function resolveXgrammar(module: typeof xgrammarModule): typeof xgrammarModule.default {
  const candidates: unknown[] = [
    module,
    (module as { default?: unknown }).default,
    (globalThis as { xgrammar?: unknown }).xgrammar,
  ];
  const api = candidates.find((candidate) => (candidate as { TokenizerInfo?: unknown } | undefined)?.TokenizerInfo);
  if (!api) throw new GrammarSetupError('the xgrammar module loaded without its API (TokenizerInfo is missing)');
  return api as typeof xgrammarModule.default;
}

let xgrammarApi: Promise<typeof xgrammarModule.default> | null = null;

/**
 * xgrammar (1 MB of JavaScript with its wasm inlined) is imported on first use, so that the engine's worker
 * starts, and loads the models, without waiting for it.
 */
function loadXgrammar(): Promise<typeof xgrammarModule.default> {
  xgrammarApi ??= import('@mlc-ai/web-xgrammar').then(resolveXgrammar);
  return xgrammarApi;
}

/**
 * Imports xgrammar and starts its wasm (a first TokenizerInfo does), so that the first GrammarEngine.create
 * does neither: the engine's worker calls it while the model files download.
 */
export async function startGrammarModule(): Promise<void> {
  const xgrammar = await loadXgrammar();
  (await xgrammar.TokenizerInfo.createTokenizerInfo([], 'raw')).dispose();
}

export class GrammarSetupError extends Error {
  override readonly name = 'GrammarSetupError';
}

/**
 * xgrammar's wasm trapped (memory access out of bounds, unreachable) rather than aborting with a message: its
 * memory may be corrupt, so every later call could fail. The engine's worker is restarted on this error.
 */
export class GrammarTrapError extends SchemaError {}

/** Whether an error is a wasm trap (not xgrammar's own abort with a message, after which it still works). */
export function isGrammarTrap(error: unknown): boolean {
  if (error instanceof GrammarTrapError) return true;
  return error instanceof WebAssembly.RuntimeError && !error.message.startsWith('Aborted(');
}

/** Runs an xgrammar call and turns its bare wasm abort into an error carrying the message it printed. */
function capturingXgrammarErrors<T>(what: string, call: () => Promise<T>): Promise<T> {
  return collectingConsoleErrors(call, (printed, error) => {
    const detail = printed
      .map((line) => line.replace(/^\[FATAL\] \S+: /, '').trim())
      .filter((line) => line && !line.startsWith('Aborted('));
    // A stack overflow unwinds the wasm mid-call as a RangeError, leaving its state as corrupt as a trap does
    // (a 10 KB regex of 5,000 nested groups: every later compile then reads memory out of bounds).
    const overflow = error instanceof RangeError && /call stack/i.test(error.message);
    if (isGrammarTrap(error) || overflow)
      return new GrammarTrapError(`xgrammar crashed on the ${what} (${detail.join('; ') || String(error)})`);
    return new SchemaError(`xgrammar rejected the ${what}: ${detail.join('; ') || String(error)}`);
  });
}

/**
 * A grammar matcher: the grammar state after the tokens it accepted. Its masks are xgrammar's with the byte
 * guard's applied (byteGuard.ts): no raw control character inside a string, no byte that breaks UTF-8.
 */
export class SchemaMatcher {
  /** The byte guard's state after each accepted token, the initial state first. */
  private readonly guardStates: number[];

  /**
   * Tracked here rather than asked of xgrammar: a matcher terminates exactly when it accepts a stop token,
   * and one wasm call per token is a measurable share of the per-position mask cost.
   */
  private terminated = false;

  constructor(
    private readonly matcher: GrammarMatcher,
    private readonly stopTokens: ReadonlySet<number>,
    private readonly guard: ByteGuard,
  ) {
    this.guardStates = [guard.initial];
  }

  private get guardState(): number {
    return this.guardStates[this.guardStates.length - 1] as number;
  }

  /** The allowed next tokens, in xgrammar's int32 bitmask layout. */
  async mask(): Promise<Int32Array> {
    const grammar = await this.matcher.getNextTokenBitmask();
    const guard = this.guard.allowed(this.guardState);
    const mask = new Int32Array(grammar.length);
    for (let i = 0; i < mask.length; i++) mask[i] = (grammar[i] as number) & (guard[i] ?? 0);
    return mask;
  }

  /** Advances over `token`; false (and no change) when the grammar or the byte guard does not allow it. */
  accept(token: number): boolean {
    const next = this.guard.next(this.guardState, token);
    if (next < 0) return false;
    const accepted = this.matcher.acceptToken(token);
    if (!accepted) return false;
    this.guardStates.push(next);
    if (this.stopTokens.has(token)) this.terminated = true;
    return true;
  }

  /** The longest text the grammar allows next whatever follows (jump-forward decoding's string); '' when none is forced. */
  forcedString(): string {
    return this.matcher.findJumpForwardString();
  }

  rollBack(tokens: number): void {
    if (tokens <= 0) return;
    this.matcher.rollBack(tokens);
    this.guardStates.length = Math.max(1, this.guardStates.length - tokens);
    // Rolling back at least one token undoes the stop token, the last one a terminated matcher accepted.
    this.terminated = false;
  }

  isTerminated(): boolean {
    return this.terminated;
  }

  dispose(): void {
    this.matcher.dispose();
  }
}

/** A lower bound on the tokens of the shortest output a schema allows, stop token included, and how it was reached. */
export interface ShortestOutput {
  tokens: number;
  /** The shortest output's bytes (a lower bound, shortestOutputBytes). */
  bytes: number;
  /** The most bytes one token of the vocabulary spells. */
  longestToken: number;
}

export class CompiledSchema {
  constructor(
    private readonly compiled: CompiledGrammar,
    /** Keywords xgrammar will not enforce exactly, by path: show them to the user. */
    readonly unenforced: readonly string[],
    /** What a run must have room for: decode() refuses a prompt that leaves less. */
    readonly shortest: ShortestOutput,
    private readonly stopTokens: ReadonlySet<number>,
    private readonly guard: ByteGuard,
  ) {}

  async matcher(): Promise<SchemaMatcher> {
    return new SchemaMatcher(
      await (await loadXgrammar()).GrammarMatcher.createGrammarMatcher(this.compiled),
      this.stopTokens,
      this.guard,
    );
  }

  dispose(): void {
    this.compiled.dispose();
  }
}

export class GrammarEngine {
  private constructor(
    private readonly info: TokenizerInfo,
    private readonly compiler: GrammarCompiler,
    readonly vocabSize: number,
    private readonly stopTokens: ReadonlySet<number>,
    private readonly guard: ByteGuard,
  ) {}

  static async create(vocabulary: GrammarVocabulary): Promise<GrammarEngine> {
    const { tokens, vocabType, stopTokenIds } = vocabulary;
    if (stopTokenIds.length === 0) {
      throw new GrammarSetupError(
        'the tokenizer has no stop token, so a completed JSON value could never end the output',
      );
    }
    for (const id of stopTokenIds) {
      if (!(Number.isInteger(id) && id >= 0 && id < tokens.length)) {
        throw new GrammarSetupError(`stop token ${id} is outside the vocabulary 0..${tokens.length - 1}`);
      }
    }
    const xgrammar = await loadXgrammar();
    const info = await xgrammar.TokenizerInfo.createTokenizerInfo([...tokens], vocabType, false, tokens.length, [
      ...stopTokenIds,
    ]);
    const compiler = await xgrammar.GrammarCompiler.createGrammarCompiler(info);
    return new GrammarEngine(info, compiler, tokens.length, new Set(stopTokenIds), new ByteGuard(vocabulary));
  }

  /** Compiles schema text; throws SchemaError naming the problem (syntax with line and column, or xgrammar's). */
  async compile(schemaText: string): Promise<CompiledSchema> {
    const schema = parseSchemaText(schemaText);
    const unenforced = checkSchema(schema);
    const plan = planGrammar(schema);
    const grammarText = JSON.stringify(plan.schema);
    const compiled = await capturingXgrammarErrors('schema', async () => {
      if (plan.placeholders.length === 0 && plan.keys.length === 0)
        return this.compiler.compileJSONSchema(grammarText, false, -1);
      // The same grammar compileJSONSchema builds, with the exact rules and property names in place of their placeholders.
      const ebnf = await (await loadXgrammar()).Testings._jsonSchemaToEBNF(grammarText, false, -1);
      return this.compiler.compileGrammar(substituteRules(ebnf, plan), 'root');
    });
    const bytes = shortestOutputBytes(schema);
    const { longestToken } = this.guard;
    return new CompiledSchema(
      compiled,
      unenforced,
      { tokens: Math.ceil(bytes / longestToken) + 1, bytes, longestToken },
      this.stopTokens,
      this.guard,
    );
  }

  dispose(): void {
    this.compiler.dispose();
    this.info.dispose();
  }
}

/**
 * What one decode run is asked to do: the loop (decode.ts) reads it whole, one step (speculativeStep.ts) reads
 * its method, sizes and sampling.
 */
import type { DrafterId } from '../core/draftLaw';
import type { SamplingParams } from '../core/sampling';
import type { CompiledSchema } from '../grammar/engine';
import type { SchemaValidator } from '../grammar/score';
import type { DecodeMethod, DraftingMode } from '../contract/runParams';
import type { StepVerifier } from '../contract/stepVerifier';

export interface Structure {
  grammar: CompiledSchema;
  schema: object;
  /** Judges the finished output against `schema`, independently of the grammar. */
  validate: SchemaValidator;
  /** Free text until this string; the schema applies from the next token on. */
  trigger?: string;
}

export interface DecodeOptions {
  method: DecodeMethod;
  K: number;
  L: number;
  sampling: SamplingParams;
  drafting: DraftingMode;
  seed: number;
  maxTokens: number;
  /** The prompt's token ids. */
  prompt: readonly number[];
  /** The JSON-schema constraint, or null for free text. */
  structure: Structure | null;
  /** Output token ids to text. */
  detokenize: (tokens: readonly number[]) => string;
  /** Text to its canonical token ids: the schema's forced text is drafted in these (drafter with 'grammar'). */
  tokenize?: (text: string) => number[];
  /** Where draft tokens come from (src/core/draftLaw.ts); 'model' (the default) draws them all from the draft model. */
  drafter?: DrafterId;
  /** The EOS: what a draft past its end is padded with. */
  stopTokenId: number;
  /** Every token that ends the output (generation_config.json's eos_token_id list); default the EOS alone. */
  stopTokenIds?: readonly number[];
  /** Checked between steps: a cancelled run ends after a whole step, with consistent state. */
  signal?: AbortSignal;
  /** Where steps are verified; the CPU twin by default. */
  verifier?: StepVerifier;
  /**
   * The teaching analyses of each step (stepAnalyses.ts), computed only when true: the page's run and its scene
   * finder ask for them; the CLIs, `serve`, races, sweeps, scorecards and benches, which show none, leave them
   * out (a quarter of a step at V = 262k). They decide nothing, so a run without them emits the same tokens.
   */
  analyses?: boolean;
  /**
   * Draft each next block while the target scores this one (draftAhead.ts): one draft, a drafter that samples,
   * a pair that can fork its drafter. The same tokens as without; faster only where the target runs on its own
   * thread (src/engine/targetThread.ts).
   */
  draftAhead?: boolean;
  /** When above 0, each emitted token carries the target law's heaviest `topTokens` tokens at its position (serve's top_logprobs). */
  topTokens?: number;
}

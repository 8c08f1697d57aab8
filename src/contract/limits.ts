/**
 * The one home of every run parameter's allowed range. The form, share links, the CLI, the worker protocol,
 * the verifiers and the shaders' array sizes all read these; nothing else states a range.
 */
export interface NumericLimit {
  min: number;
  max: number;
  integer: boolean;
  /** The smallest value is excluded (top-p must be above 0). */
  minExclusive?: boolean;
  label: string;
}

/** Drafts per step (K) and tokens per draft (L): 8 × 8 keeps a draft tree readable and a step's GPU buffers small. */
export const MAX_DRAFTS = 8;
export const MAX_DRAFT_LENGTH = 8;

export const LIMITS = {
  K: { min: 1, max: MAX_DRAFTS, integer: true, label: 'K drafts' },
  L: { min: 1, max: MAX_DRAFT_LENGTH, integer: true, label: 'L draft length' },
  temperature: { min: 0, max: 2, integer: false, label: 'Temperature' },
  topP: { min: 0, max: 1, integer: false, minExclusive: true, label: 'Top-p' },
  topK: { min: 1, max: 1_000_000, integer: true, label: 'Top-k' },
  seed: { min: 0, max: 2 ** 31 - 1, integer: true, label: 'Seed' },
  maxTokens: { min: 1, max: 512, integer: true, label: 'Max tokens' },
} as const satisfies Record<string, NumericLimit>;

export type LimitedParam = keyof typeof LIMITS;

/**
 * What a JSON schema may ask of the grammar compiler. xgrammar's compile time grows much faster than the
 * schema (3,000 properties ≈ 3 s, 10,000 ≈ 45 s, ~24,000 > 240 s), and deep nesting exhausts its stack and
 * the validators', so a schema past these is refused with the limit named; a compile still running after
 * `compileSeconds` is stopped.
 */
export const SCHEMA_LIMITS = {
  /** Objects and arrays inside one another. */
  nestingDepth: 32,
  /** Named properties, summed over the whole schema. */
  properties: 20_000,
  /** Values in one enum. */
  enumValues: 10_000,
  compileSeconds: 10,
} as const;

/** Bounds on every network read of a model load: the response's headers, and any gap in its body. */
export const NETWORK_LIMITS = {
  requestSeconds: 15,
  stallSeconds: 15,
} as const;

/** What a talk file (src/store/talk.ts) may hold: a talk is untrusted input like a share link. */
export const TALK_LIMITS = {
  /** The file's size in characters. */
  fileChars: 1_000_000,
  scenes: 200,
  /** A title's or a caption's length in characters. */
  captionChars: 500,
} as const;

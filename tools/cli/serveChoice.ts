/**
 * One choice's output as `npm run serve` decodes it: its text, cut at the first stop sequence (the stop text
 * itself excluded, as the OpenAI API defines `stop`), handed out in pieces that never end inside a character
 * or inside what may become a stop sequence, each with the tokens behind it and their log-probabilities under
 * the target's masked, tempered law (the law the verifiers preserve), in the chat and the completions shapes.
 */
import type { EmittedToken } from '../../src/contract/stepRecord';

export interface TokenDetail {
  text: string;
  logprob: number;
  top: { text: string; logprob: number }[];
  /** Characters into the choice's text where the token's text begins. */
  offset: number;
}

export interface Piece {
  text: string;
  tokens: TokenDetail[];
}

/** Natural log, as the API reports; a lossless verifier never emits a token of probability 0 (whose log JSON would write as null). */
const logOf = (probability: number) => Math.log(probability);

export class ChoiceText {
  private readonly tokens: EmittedToken[] = [];
  /** The text's length after each token. */
  private readonly ends: number[] = [];
  private text = '';
  private sentChars = 0;
  private sentTokens = 0;
  /** Where a stop sequence begins, and the token that completed it, once one has matched. */
  private stopAt: { chars: number; tokens: number } | null = null;
  /** Tokens the run has output, its stop token included (what max_tokens counts). */
  private outputCount = 0;

  constructor(
    private readonly decode: (tokens: readonly number[]) => string,
    private readonly stopTokenId: number,
    private readonly stop: readonly string[],
    private readonly maxTokens: number,
  ) {}

  /** Adds a step's emitted tokens (the stop token is not output, nor what a step emits past max_tokens); true once a stop sequence has matched. */
  push(emitted: readonly EmittedToken[]): boolean {
    for (const token of emitted) {
      if (this.outputCount === this.maxTokens) break;
      this.outputCount++;
      if (token.token === this.stopTokenId || this.stopAt !== null) continue;
      this.tokens.push(token);
      this.text = this.decode(this.tokens.map((each) => each.token));
      this.ends.push(this.text.length);
      const from = Math.max(0, (this.ends.at(-2) ?? 0) - Math.max(0, ...this.stop.map((s) => s.length)));
      const matches = this.stop.map((s) => this.text.indexOf(s, from)).filter((at) => at >= 0);
      if (matches.length > 0) this.stopAt = { chars: Math.min(...matches), tokens: this.tokens.length };
    }
    return this.stopAt !== null;
  }

  get stopped(): boolean {
    return this.stopAt !== null;
  }

  /** Output tokens generated, through the one that completed a stop sequence (OpenAI's completion_tokens). */
  get completionTokens(): number {
    return this.stopAt?.tokens ?? this.tokens.length;
  }

  /** Text that no later token can change: not a trailing unfinished character (U+FFFD until its next byte), not a possible start of a stop sequence. */
  private settledEnd(): number {
    let end = this.text.length;
    while (end > this.sentChars && this.text[end - 1] === '\uFFFD') end--;
    const tail = this.text.slice(this.sentChars, end);
    let held = 0;
    for (const stop of this.stop)
      for (let k = Math.min(stop.length - 1, tail.length); k > held; k--)
        if (tail.endsWith(stop.slice(0, k))) {
          held = k;
          break;
        }
    return end - held;
  }

  /** The next piece to send (null when there is none yet); `final` sends everything left. */
  take(final: boolean): Piece | null {
    const end = this.stopAt?.chars ?? (final ? this.text.length : this.settledEnd());
    if (end <= this.sentChars && !final) return null;
    const start = (i: number) => (i === 0 ? 0 : (this.ends[i - 1] as number));
    // A token goes with the piece that holds its first character; at the end, every token left goes.
    const sendsAll = final && this.stopAt === null;
    const tokens: TokenDetail[] = [];
    while (this.sentTokens < this.tokens.length && (sendsAll || start(this.sentTokens) < end)) {
      const token = this.tokens[this.sentTokens] as EmittedToken;
      tokens.push({
        text: this.decode([token.token]),
        logprob: logOf(token.targetProb),
        top: (token.targetTop ?? []).map((entry) => ({ text: this.decode([entry.token]), logprob: logOf(entry.prob) })),
        offset: start(this.sentTokens),
      });
      this.sentTokens++;
    }
    const piece = { text: this.text.slice(this.sentChars, Math.max(end, this.sentChars)), tokens };
    this.sentChars = Math.max(end, this.sentChars);
    return piece;
  }
}

const bytesOf = (text: string) => [...new TextEncoder().encode(text)];

/** Chat's choice.logprobs: {content: [{token, logprob, bytes, top_logprobs}], refusal}. */
export const chatLogprobs = (tokens: readonly TokenDetail[]) => ({
  content: tokens.map((token) => ({
    token: token.text,
    logprob: token.logprob,
    bytes: bytesOf(token.text),
    top_logprobs: token.top.map((entry) => ({ token: entry.text, logprob: entry.logprob, bytes: bytesOf(entry.text) })),
  })),
  refusal: null,
});

/** Completions' choice.logprobs: parallel lists, top_logprobs as {text: logprob} per token. */
export const completionLogprobs = (tokens: readonly TokenDetail[]) => ({
  tokens: tokens.map((token) => token.text),
  token_logprobs: tokens.map((token) => token.logprob),
  top_logprobs: tokens.map((token) => Object.fromEntries(token.top.map((entry) => [entry.text, entry.logprob]))),
  text_offset: tokens.map((token) => token.offset),
});

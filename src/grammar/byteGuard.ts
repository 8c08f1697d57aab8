/**
 * A mask layer over xgrammar's: what its JSON-schema grammars let through and JSON does not. xgrammar's
 * string rules accept raw U+0000–U+001F (its issue #286), and a byte-level vocabulary can spell byte
 * sequences that are not UTF-8; neither may reach the output. The guard follows the output byte by byte
 * (inside a string or not, in an escape, expecting UTF-8 continuation bytes) and removes every token whose
 * bytes would put a raw control byte inside a string, a byte that can never complete to UTF-8, or a
 * `\uD800`–`\uDFFF` escape (a lone surrogate half, which JSON Schema's lengths count apart from ajv's).
 * SchemaMatcher applies it to every mask it hands out, so the target rows, the drafts, the bonus row and
 * the GPU path all read the same corrected mask.
 */
import { maskWordCount } from '../core/sampling';
import type { GrammarVocabulary } from './vocabulary';

/** GPT-2's byte-level alphabet: every byte maps to one printable character (printable bytes to themselves, the rest to U+0100 onwards). */
export const BYTE_TO_CHAR: readonly string[] = (() => {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  const map: string[] = [];
  let next = 256;
  for (let b = 0; b < 256; b++) map[b] = String.fromCharCode(printable(b) ? b : next++);
  return map;
})();

const CHAR_TO_BYTE = new Map(BYTE_TO_CHAR.map((char, byte) => [char, byte]));

/** A token's bytes, or null for a token that spells no bytes (a special token such as the stop token). */
export function tokenBytes(token: string, vocabType: GrammarVocabulary['vocabType']): Uint8Array | null {
  if (vocabType === 'byte_level') {
    const bytes: number[] = [];
    for (const char of token) {
      const byte = CHAR_TO_BYTE.get(char);
      if (byte === undefined) return null;
      bytes.push(byte);
    }
    return Uint8Array.from(bytes);
  }
  if (vocabType === 'byte_fallback') {
    const fallback = /^<0x([0-9A-Fa-f]{2})>$/.exec(token);
    if (fallback) return Uint8Array.of(parseInt(fallback[1] as string, 16));
    return new TextEncoder().encode(token.replaceAll('\u2581', ' '));
  }
  return new TextEncoder().encode(token);
}

// Lexical modes: the low 3 bits of a state.
const OUTSIDE = 0;
const IN_STRING = 1;
const ESCAPE = 2;
/** After `\u`: four hex digits to come. */
const HEX4 = 3;
/** After `\uD`: the next digit must be 0–7, or the escape is a surrogate half. */
const HEX3_AFTER_D = 4;
const HEX3 = 5;
const HEX2 = 6;
const HEX1 = 7;

/**
 * A state packs the mode (3 bits), the UTF-8 continuation bytes still due (2 bits), and the range the next
 * one must fall in (lo and hi, 8 bits each; only the first continuation byte has a narrower range).
 */
const pack = (mode: number, due: number, lo: number, hi: number) => mode | (due << 3) | (lo << 5) | (hi << 13);
const INITIAL = pack(OUTSIDE, 0, 0, 0);
/** The next state, or -1 when the byte can never be part of valid JSON text here. */
const REJECT = -1;

const isHex = (b: number) => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);

/** A UTF-8 lead byte's continuation count and first continuation range (RFC 3629: no overlongs, no surrogates, ≤ U+10FFFF). */
function leadByte(mode: number, b: number): number {
  if (b >= 0xc2 && b <= 0xdf) return pack(mode, 1, 0x80, 0xbf);
  if (b === 0xe0) return pack(mode, 2, 0xa0, 0xbf);
  if (b === 0xed) return pack(mode, 2, 0x80, 0x9f);
  if (b >= 0xe1 && b <= 0xef) return pack(mode, 2, 0x80, 0xbf);
  if (b === 0xf0) return pack(mode, 3, 0x90, 0xbf);
  if (b >= 0xf1 && b <= 0xf3) return pack(mode, 3, 0x80, 0xbf);
  if (b === 0xf4) return pack(mode, 3, 0x80, 0x8f);
  return REJECT;
}

export function stepByte(state: number, b: number): number {
  const mode = state & 7;
  const due = (state >> 3) & 3;
  if (due > 0) {
    const lo = (state >> 5) & 0xff;
    const hi = (state >> 13) & 0xff;
    return b >= lo && b <= hi ? pack(mode, due - 1, 0x80, 0xbf) : REJECT;
  }
  switch (mode) {
    case OUTSIDE:
      if (b === 0x22) return pack(IN_STRING, 0, 0, 0);
      return b < 0x80 ? state : leadByte(OUTSIDE, b);
    case IN_STRING:
      if (b < 0x20) return REJECT;
      if (b === 0x22) return INITIAL;
      if (b === 0x5c) return pack(ESCAPE, 0, 0, 0);
      return b < 0x80 ? state : leadByte(IN_STRING, b);
    case ESCAPE:
      if (b === 0x75) return pack(HEX4, 0, 0, 0);
      return '"\\/bfnrt'.includes(String.fromCharCode(b)) ? pack(IN_STRING, 0, 0, 0) : REJECT;
    case HEX4:
      if (b === 0x44 || b === 0x64) return pack(HEX3_AFTER_D, 0, 0, 0);
      return isHex(b) ? pack(HEX3, 0, 0, 0) : REJECT;
    case HEX3_AFTER_D:
      return b >= 0x30 && b <= 0x37 ? pack(HEX2, 0, 0, 0) : REJECT;
    case HEX3:
      return isHex(b) ? pack(HEX2, 0, 0, 0) : REJECT;
    case HEX2:
      return isHex(b) ? pack(HEX1, 0, 0, 0) : REJECT;
    default:
      return isHex(b) ? pack(IN_STRING, 0, 0, 0) : REJECT;
  }
}

/** The guard's tables for one vocabulary: each token's bytes, and the allowed tokens per state, built on first use. */
export class ByteGuard {
  private readonly bytes: (Uint8Array | null)[];
  private readonly masks = new Map<number, Int32Array>();
  readonly initial = INITIAL;
  /** The most bytes one token spells. */
  readonly longestToken: number;

  constructor(vocabulary: GrammarVocabulary) {
    const stops = new Set(vocabulary.stopTokenIds);
    this.bytes = vocabulary.tokens.map((token, id) => (stops.has(id) ? null : tokenBytes(token, vocabulary.vocabType)));
    this.longestToken = this.bytes.reduce((longest, bytes) => Math.max(longest, bytes?.length ?? 0), 1);
  }

  /** The state after `token`, or -1 when the guard forbids it. A token without bytes moves nothing and is allowed only between whole characters. */
  next(state: number, token: number): number {
    const bytes = this.bytes[token];
    if (bytes === undefined) return REJECT;
    if (bytes === null) return ((state >> 3) & 3) === 0 ? state : REJECT;
    let current = state;
    for (const b of bytes) {
      current = stepByte(current, b);
      if (current === REJECT) return REJECT;
    }
    return current;
  }

  /** The tokens allowed in `state`, in xgrammar's int32 bitmask layout. */
  allowed(state: number): Int32Array {
    let mask = this.masks.get(state);
    if (!mask) {
      mask = new Int32Array(maskWordCount(this.bytes.length));
      for (let token = 0; token < this.bytes.length; token++)
        if (this.next(state, token) !== REJECT) mask[token >> 5] = (mask[token >> 5] as number) | (1 << (token & 31));
      this.masks.set(state, mask);
    }
    return mask;
  }
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTokenAllowed } from '../../src/core/sampling';
import { BYTE_TO_CHAR, ByteGuard, stepByte, tokenBytes } from '../../src/grammar/byteGuard';
import { GrammarEngine, type SchemaMatcher } from '../../src/grammar/engine';

/** A byte-level vocabulary written as byte arrays: ASCII pieces, a raw control byte, UTF-8 pieces whole and split. */
const PIECES: number[][] = [
  ...['{', '}', '"', ':', ',', ' ', '\\', 'u', 'n', 'a', 'b', 'D', '8', '0', '5', '"a"', 'ab'].map((text) => [
    ...new TextEncoder().encode(text),
  ]),
  [0x05], // a raw control character
  [0x61, 0x05], // "a" then U+0005: a control byte in the middle of a token
  [0x0a], // a raw newline
  [0xe6, 0x97, 0xa5], // 日, whole
  [0xe6],
  [0x97],
  [0xa5], // 日, byte by byte
  [0xf0, 0x9f, 0x98, 0x80], // 😀, whole
  [0xf0, 0x9f],
  [0x98, 0x80], // 😀 in two halves
  [0x80], // a continuation byte with no lead
  [0xc0, 0x80], // an overlong NUL
  [0xed, 0xa0, 0x80], // a UTF-16 surrogate spelled in UTF-8
  [0xff], // never UTF-8
];
const TOKENS = [...PIECES.map((bytes) => bytes.map((b) => BYTE_TO_CHAR[b]).join('')), '<|end|>'];
const STOP = TOKENS.length - 1;
const id = (...bytes: number[]) =>
  PIECES.findIndex((piece) => piece.length === bytes.length && piece.every((b, i) => b === bytes[i]));
const text = (piece: string) => id(...new TextEncoder().encode(piece));

describe('the byte guard state machine', () => {
  const run = (bytes: number[]) => bytes.reduce((state, b) => (state < 0 ? state : stepByte(state, b)), 0);

  it('control characters: rejected raw inside a string, allowed as escapes and outside strings', () => {
    expect(run([0x22, 0x61, 0x05])).toBe(-1);
    expect(run([0x22, 0x0a])).toBe(-1);
    expect(run([0x22, ...new TextEncoder().encode('\\u0005\\n\\t"')])).toBe(0);
    expect(run([0x7b, 0x0a, 0x7d])).toBe(0);
  });

  it('partial UTF-8: bytes that can complete stay open; bytes that cannot are rejected', () => {
    expect(run([0x22, 0xe6, 0x97])).toBeGreaterThan(0);
    expect(run([0x22, 0xe6, 0x97, 0xa5, 0x22])).toBe(0);
    for (const bad of [[0x80], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xff], [0xe6, 0x41], [0xf0, 0x80], [0xf4, 0x90]]) {
      expect(run([0x22, ...bad]), bad.map((b) => b.toString(16)).join(' ')).toBe(-1);
    }
  });

  it('surrogate-half escapes are refused, other \\u escapes allowed', () => {
    expect(run([0x22, ...new TextEncoder().encode('\\uD83D')])).toBe(-1);
    expect(run([0x22, ...new TextEncoder().encode('\\udfff')])).toBe(-1);
    expect(run([0x22, ...new TextEncoder().encode('\\uD7FF"')])).toBe(0);
  });

  it('reads byte-level, byte-fallback and raw tokens as their bytes', () => {
    expect([...(tokenBytes('Ġa', 'byte_level') as Uint8Array)]).toEqual([0x20, 0x61]);
    expect([...(tokenBytes('<0x0A>', 'byte_fallback') as Uint8Array)]).toEqual([0x0a]);
    expect([...(tokenBytes('\u2581a', 'byte_fallback') as Uint8Array)]).toEqual([0x20, 0x61]);
    expect([...(tokenBytes('日', 'raw') as Uint8Array)]).toEqual([0xe6, 0x97, 0xa5]);
    expect(tokenBytes('<|end|>\u4e00', 'byte_level')).toBeNull();
  });

  it('a stop token spells no bytes and is allowed only between whole characters', () => {
    const guard = new ByteGuard({ tokens: TOKENS, vocabType: 'byte_level', stopTokenIds: [STOP] });
    expect(isTokenAllowed(guard.allowed(0), STOP)).toBe(true);
    const midCharacter = guard.next(guard.next(0, text('"')), id(0xe6));
    expect(midCharacter).toBeGreaterThan(0);
    expect(isTokenAllowed(guard.allowed(midCharacter), STOP)).toBe(false);
  });
});

describe('masks from the grammar engine never allow an invalid continuation', () => {
  let engine: GrammarEngine;
  beforeAll(async () => {
    engine = await GrammarEngine.create({ tokens: TOKENS, vocabType: 'byte_level', stopTokenIds: [STOP] });
  });
  afterAll(() => engine.dispose());

  const matcherFor = async (schema: object, prefix: number[]) => {
    const compiled = await engine.compile(JSON.stringify(schema));
    const matcher = await compiled.matcher();
    for (const token of prefix) expect(matcher.accept(token), `token ${token}`).toBe(true);
    return { matcher, done: () => (matcher.dispose(), compiled.dispose()) };
  };
  const allowed = async (matcher: SchemaMatcher) => {
    const mask = await matcher.mask();
    return TOKENS.map((_, token) => token).filter((token) => isTokenAllowed(mask, token));
  };

  // xgrammar's rule for a bounded string (which allows no escape at all) is where raw control characters got through.
  it.each([{ type: 'string' }, { type: 'string', maxLength: 20 }, { type: 'string', minLength: 1 }])(
    'control characters: no raw U+0005 or newline inside a string: %j',
    async (schema) => {
      const { matcher, done } = await matcherFor(schema, [text('"')]);
      const open = await allowed(matcher);
      expect(open).toContain(text('a'));
      for (const bad of [id(0x05), id(0x61, 0x05), id(0x0a)]) expect(open).not.toContain(bad);
      expect(matcher.accept(id(0x05))).toBe(false);
      done();
    },
  );

  it('control characters: the \\u0005 escape stays open', async () => {
    const { matcher, done } = await matcherFor({ type: 'string' }, [text('"')]);
    for (const piece of ['\\', 'u', '0', '0', '0', '5', '"']) expect(matcher.accept(text(piece)), piece).toBe(true);
    expect(await allowed(matcher)).toEqual([STOP]);
    done();
  });

  it('partial UTF-8: after a lead byte only its continuation; never a stray, overlong or surrogate sequence', async () => {
    const { matcher, done } = await matcherFor({ type: 'string' }, [text('"')]);
    const open = await allowed(matcher);
    for (const bad of [[0x80], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xff], [0x97]])
      expect(open, bad.join(' ')).not.toContain(id(...bad));
    expect(matcher.accept(id(0xe6))).toBe(true);
    // Only tokens that go on with continuation bytes: 0x97, 0x80 and 0xa5, and 0x98 0x80 (which completes a character).
    expect(await allowed(matcher)).toEqual([id(0x98, 0x80), id(0x80), id(0x97), id(0xa5)].sort((a, b) => a - b));
    expect(matcher.accept(text('"'))).toBe(false);
    expect(matcher.accept(id(0x97))).toBe(true);
    expect(await allowed(matcher)).toEqual([id(0x80), id(0x97), id(0xa5)].sort((a, b) => a - b));
    matcher.rollBack(2);
    expect(await allowed(matcher)).toEqual(open);
    done();
  });

  it('code-point lengths: maxLength 2 admits 日😀 (7 bytes), byte by byte or whole, and nothing after it', async () => {
    const { matcher, done } = await matcherFor({ type: 'string', maxLength: 2 }, [
      text('"'),
      id(0xe6),
      id(0x97),
      id(0xa5),
      id(0xf0, 0x9f),
      id(0x98, 0x80),
    ]);
    expect(await allowed(matcher)).toEqual([text('"')]);
    done();
    const whole = await matcherFor({ type: 'string', minLength: 2, maxLength: 2 }, [text('"'), id(0xe6, 0x97, 0xa5)]);
    expect(await allowed(whole.matcher)).not.toContain(text('"'));
    expect(whole.matcher.accept(id(0xf0, 0x9f, 0x98, 0x80))).toBe(true);
    expect(await allowed(whole.matcher)).toEqual([text('"')]);
    whole.done();
  });

  it('an emoji/CJK string passes: "日😀" is accepted to the stop token and parses', async () => {
    const tokens = [text('"'), id(0xe6, 0x97, 0xa5), id(0xf0, 0x9f, 0x98, 0x80), text('"'), STOP];
    const { matcher, done } = await matcherFor({ type: 'string', minLength: 1, maxLength: 5 }, tokens);
    expect(matcher.isTerminated()).toBe(true);
    const bytes = Uint8Array.from(tokens.slice(0, -1).flatMap((token) => PIECES[token] as number[]));
    expect(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))).toBe('日😀');
    done();
  });
});

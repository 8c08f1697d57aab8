/**
 * Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11), a counter-based
 * generator: word i of a stream is a pure function of (key, counter), so WGSL can recompute any uniform
 * bit-identically from the same seed and index, with no state to ship to the GPU.
 *
 * Stream layout (the GPU port must use the same):
 *   key     = [seed mod 2^32, floor(seed / 2^32)]
 *   counter = [block mod 2^32, floor(block / 2^32), stream mod 2^32, 0]
 *   block b yields the four words 4b .. 4b+3 of the stream, in output order.
 *
 * The verifiers' choices read words directly (two per choice, a 64-bit uniform: src/core/random.ts and
 * drawCategorical in src/core/sampling.ts). Float recipe for everything else (exact, never 1):
 *   f64 uniform from two words a then b:  ((a >>> 5) * 2^26 + (b >>> 6)) * 2^-53  -> [0, 1), 53 bits
 * `uniform()` consumes two consecutive words of the stream.
 */

const PHILOX_M0 = 0xd2511f53;
const PHILOX_M1 = 0xcd9e8d57;
const PHILOX_W0 = 0x9e3779b9;
const PHILOX_W1 = 0xbb67ae85;
const TWO_POW_32 = 4294967296;

/**
 * High 32 bits of the 64-bit product of two u32 values, exact in doubles: a times each 16-bit half of b is
 * below 2^48, and so is their sum once the low product is shifted down.
 */
export function mulHi32(a: number, b: number): number {
  return Math.floor((a * (b >>> 16) + Math.floor((a * (b & 0xffff)) / 65536)) / 65536);
}

/**
 * One Philox4x32-10 block into `out` (four u32 words), from the counter and key words as numbers: the form for
 * loops over many counters, which would otherwise build two arrays a block.
 */
export function philoxBlockInto(
  out: Uint32Array | number[],
  counter0: number,
  counter1: number,
  counter2: number,
  counter3: number,
  key0: number,
  key1: number,
): void {
  let c0 = counter0 >>> 0;
  let c1 = counter1 >>> 0;
  let c2 = counter2 >>> 0;
  let c3 = counter3 >>> 0;
  let k0 = key0 >>> 0;
  let k1 = key1 >>> 0;
  for (let round = 0; round < 10; round++) {
    const hi0 = mulHi32(PHILOX_M0, c0);
    const lo0 = Math.imul(PHILOX_M0, c0) >>> 0;
    const hi1 = mulHi32(PHILOX_M1, c2);
    const lo1 = Math.imul(PHILOX_M1, c2) >>> 0;
    c0 = (hi1 ^ c1 ^ k0) >>> 0;
    c1 = lo1;
    c2 = (hi0 ^ c3 ^ k1) >>> 0;
    c3 = lo0;
    k0 = (k0 + PHILOX_W0) >>> 0;
    k1 = (k1 + PHILOX_W1) >>> 0;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

/** One Philox4x32-10 block: four u32 counter words and two u32 key words to four u32 output words. */
export function philox4x32_10(
  counter: readonly [number, number, number, number],
  key: readonly [number, number],
): [number, number, number, number] {
  const out: [number, number, number, number] = [0, 0, 0, 0];
  philoxBlockInto(out, counter[0], counter[1], counter[2], counter[3], key[0], key[1]);
  return out;
}

export function uniformF64FromWords(first: number, second: number): number {
  return ((first >>> 5) * 67108864 + (second >>> 6)) * 2 ** -53;
}

export interface Rng {
  /** The next u32 word of the stream. */
  nextUint32(): number;
  /** A 53-bit uniform in [0, 1) from the next two words. */
  uniform(): number;
  /** Index of the next word to be consumed: enough, with seed and stream, to replay from here. */
  readonly position: number;
}

function assertWholeNumber(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative safe integer, got ${value}`);
  }
}

/** The Philox key of a seed (any non-negative safe integer). */
export function seedKey(seed: number): readonly [number, number] {
  assertWholeNumber('seed', seed);
  return [seed % TWO_POW_32, Math.floor(seed / TWO_POW_32)];
}

function streamBlock(key: readonly [number, number], stream: number, block: number): [number, number, number, number] {
  return philox4x32_10([block % TWO_POW_32, Math.floor(block / TWO_POW_32), stream, 0], key);
}

/** Word `index` of a stream, addressed directly (what a GPU invocation computes). */
export function streamWord(seed: number, stream: number, index: number): number {
  assertWholeNumber('index', index);
  return streamBlock(seedKey(seed), stream, Math.floor(index / 4))[index % 4] as number;
}

/** A generator over one stream, starting at word `startWord` (to resume a replay, or to match a GPU step). */
export function createRng(seed: number, stream = 0, startWord = 0): Rng {
  const key = seedKey(seed);
  assertWholeNumber('stream', stream);
  assertWholeNumber('startWord', startWord);
  if (stream >= TWO_POW_32) throw new RangeError(`stream must be below 2^32, got ${stream}`);
  let position = startWord;
  let block: [number, number, number, number] = [0, 0, 0, 0];
  let started = false;
  const nextUint32 = (): number => {
    const lane = position % 4;
    if (lane === 0 || !started) block = streamBlock(key, stream, Math.floor(position / 4));
    started = true;
    position++;
    return block[lane] as number;
  };
  return {
    nextUint32,
    uniform: () => {
      const first = nextUint32();
      return uniformF64FromWords(first, nextUint32());
    },
    get position() {
      return position;
    },
  };
}

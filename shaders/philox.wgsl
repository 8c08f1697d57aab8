// Philox4x32-10, bit-identical to src/core/rng.ts (its header documents the stream layout and the float
// recipes). WGSL has no 64-bit integers, so the 32×32→64 product is built from 16-bit limbs.
// Numerics: integer-only, exact; the f32 uniform (word >> 8) * 2^-24 is exact in f32 and never reaches 1.

const PHILOX_M0: u32 = 0xd2511f53u;
const PHILOX_M1: u32 = 0xcd9e8d57u;
const PHILOX_W0: u32 = 0x9e3779b9u;
const PHILOX_W1: u32 = 0xbb67ae85u;

/// (high, low) words of a * b.
fn mul_hi_lo(a: u32, b: u32) -> vec2<u32> {
  let a_lo = a & 0xffffu;
  let a_hi = a >> 16u;
  let b_lo = b & 0xffffu;
  let b_hi = b >> 16u;
  let lo_lo = a_lo * b_lo;
  let lo_hi = a_lo * b_hi;
  let hi_lo = a_hi * b_lo;
  let carry = ((lo_lo >> 16u) + (lo_hi & 0xffffu) + (hi_lo & 0xffffu)) >> 16u;
  return vec2<u32>(a_hi * b_hi + (lo_hi >> 16u) + (hi_lo >> 16u) + carry, a * b);
}

fn philox4x32_10(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
  var c = counter;
  var k = key;
  for (var round = 0u; round < 10u; round++) {
    let p0 = mul_hi_lo(PHILOX_M0, c.x);
    let p1 = mul_hi_lo(PHILOX_M1, c.z);
    c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y);
    k = k + vec2<u32>(PHILOX_W0, PHILOX_W1);
  }
  return c;
}

/// Word `index` (below 2^32) of stream `stream` under `key`.
fn philox_word(key: vec2<u32>, stream: u32, index: u32) -> u32 {
  return philox4x32_10(vec4<u32>(index / 4u, 0u, stream, 0u), key)[index % 4u];
}

fn uniform_f32(word: u32) -> f32 {
  return f32(word >> 8u) * (1.0 / 16777216.0);
}

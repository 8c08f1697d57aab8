// Philox4x32-10, bit-identical to src/core/rng.ts (its header documents the stream layout). WGSL has no
// 64-bit integers, so the 32×32→64 product comes from mul_hi_lo. Integer-only, exact.
// Requires: u64.

const PHILOX_M0: u32 = 0xd2511f53u;
const PHILOX_M1: u32 = 0xcd9e8d57u;
const PHILOX_W0: u32 = 0x9e3779b9u;
const PHILOX_W1: u32 = 0xbb67ae85u;

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

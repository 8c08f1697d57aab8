// u64: 64-bit unsigned integers as vec2<u32>(high, low), for what WGSL's u32 cannot hold: exact unit sums
// of a categorical row, 64-bit uniforms and the thresholds derived from them. Integer-only, exact.
// Requires: nothing.

/// (high, low) words of a * b, from 16-bit limbs.
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

/// a + b modulo 2^64.
fn add_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let low = a.y + b.y;
  return vec2<u32>(a.x + b.x + select(0u, 1u, low < a.y), low);
}

fn less_u64(a: vec2<u32>, b: vec2<u32>) -> bool {
  return a.x < b.x || (a.x == b.x && a.y < b.y);
}

/// floor(a · b / 2^64): the high half of the 128-bit product.
fn mul_hi_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let low_low = mul_hi_lo(a.y, b.y);
  let low_high = mul_hi_lo(a.y, b.x);
  let high_low = mul_hi_lo(a.x, b.y);
  // Bits 32..63 of the product, whose carry (0..2) reaches the high half.
  let middle = add_u64(add_u64(vec2<u32>(0u, low_low.x), vec2<u32>(0u, low_high.y)), vec2<u32>(0u, high_low.y));
  let high = add_u64(mul_hi_lo(a.x, b.x), vec2<u32>(0u, low_high.x));
  return add_u64(add_u64(high, vec2<u32>(0u, high_low.x)), vec2<u32>(0u, middle.x));
}

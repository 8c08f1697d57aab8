// sample: the exact categorical draw of src/core/sampling.ts (drawCategorical), bit for bit on the same f32
// weights, from one 64-bit uniform U (two Philox words).
// Requires: u64, workgroup, residual.
//
// Why this scheme: an f32 inverse-CDF walk cannot draw a token lighter than about 2^-24 of the running sum
// (the sum does not move), and a 24-bit uniform cannot land in it either; an exponential race needs a
// word per token and a log whose rounding WGSL does not pin down. Integers have neither problem:
//   1. each weight becomes whole units: its f32 mantissa shifted so that the largest weight gets
//      [2^45, 2^46) units (W = floor(w · 2^(45 − E)), E the largest weight's exponent; a subnormal largest
//      weight counts as exponent −126, the CPU's E for normal ones);
//   2. the units are summed by an exclusive u64 scan over the invocations' chunks: integer sums are exact
//      and associative, so the parallel sum equals the CPU's sequential one;
//   3. T = floor(U · S / 2^64) < S, and the draw is the first token whose cumulative units exceed T.
// The law is then exact on the word grid: token i gets ceil(C_i·2^64/S) − ceil(C_{i−1}·2^64/S) of the
// 2^64 uniforms, within 2^-64 of W_i/S, itself within 2^-45 of the largest weight of w_i/Σw; at V = 50,257
// the total variation is below 2^-28 and every token with p ≥ 2^-40 (≥ 32 units) is reachable
// (test/core/exactLaw.test.ts computes the law; test/gpu/exactLaw.test.ts holds this kernel to it).
// WGSL may flush subnormal f32 values to zero (SwiftShader does), so a weight or p below 2^-126 may count
// as 0 here where the CPU keeps it: far below the 2^-45 resolution under any normal largest weight.

/// Positive weights keep their bits (which order like the values); zero, −0 and NaN count as 0.
fn weight_bits(w: f32) -> u32 {
  return select(0u, bitcast<u32>(w), w > 0.0);
}

/// The biased exponent, with subnormals at 1 (their scale: m · 2^(1 − 150)).
fn effective_exponent(bits: u32) -> i32 {
  return max(i32((bits >> 23u) & 0xffu), 1);
}

/// floor(w · 2^(172 − top_exponent)): the weight's mantissa shifted by (its exponent − the top one) + 22.
fn weight_units(w: f32, top_exponent: i32) -> vec2<u32> {
  let bits = weight_bits(w);
  let mantissa = (bits & 0x7fffffu) | select(0u, 0x800000u, (bits >> 23u) != 0u);
  let shift = effective_exponent(bits) - top_exponent + 22;
  if (bits == 0u || shift <= -24) {
    return vec2<u32>(0u, 0u);
  }
  if (shift < 0) {
    return vec2<u32>(0u, mantissa >> u32(-shift));
  }
  let s = u32(shift);
  return vec2<u32>(select(0u, mantissa >> (32u - s), s > 0u), mantissa << s);
}

fn draw(e: RowExpr, vocab: u32, uniform: vec2<u32>) -> u32 {
  let chunk = (vocab + WG - 1u) / WG;
  let begin = min(vocab, lid * chunk);
  let end = min(vocab, begin + chunk);
  var top = 0u;
  for (var x = begin; x < end; x++) {
    top = max(top, weight_bits(expr_at(e, x)));
  }
  let top_bits = wg_max_u32(top);
  if (top_bits == 0u) {
    // An empty row: callers draw only from rows with positive mass (draw_residual falls back first).
    return 0u;
  }
  let top_exponent = effective_exponent(top_bits);
  var chunk_units = vec2<u32>(0u, 0u);
  for (var x = begin; x < end; x++) {
    chunk_units = add_u64(chunk_units, weight_units(expr_at(e, x), top_exponent));
  }
  let scan = wg_exclusive_scan_u64(chunk_units);
  let threshold = mul_hi_u64(uniform, scan.total);
  var found = NO_INDEX;
  if (!less_u64(threshold, scan.before) && less_u64(threshold, add_u64(scan.before, chunk_units))) {
    var cumulative = scan.before;
    for (var x = begin; x < end; x++) {
      cumulative = add_u64(cumulative, weight_units(expr_at(e, x), top_exponent));
      if (less_u64(threshold, cumulative)) {
        found = x;
        break;
      }
    }
  }
  return wg_min_u32(found);
}

/// bernoulliFromWords of src/core/random.ts: U < p · 2^64 exactly, as U < ceil(p · 2^64); bias < 2^-64.
fn bernoulli_from_words(p: f32, uniform: vec2<u32>) -> bool {
  if (p >= 1.0) {
    return true;
  }
  if (!(p > 0.0)) {
    return false;
  }
  let bits = bitcast<u32>(p);
  let mantissa = (bits & 0x7fffffu) | select(0u, 0x800000u, (bits >> 23u) != 0u);
  // p · 2^64 = mantissa · 2^shift, with shift ≤ 40 since p < 1.
  let shift = effective_exponent(bits) - 86;
  var ceiling = vec2<u32>(0u, select(0u, 1u, mantissa != 0u));
  if (shift >= 32) {
    ceiling = vec2<u32>(mantissa << u32(shift - 32), 0u);
  } else if (shift >= 0) {
    let s = u32(shift);
    ceiling = vec2<u32>(select(0u, mantissa >> (32u - s), s > 0u), mantissa << s);
  } else if (shift > -32) {
    let r = u32(-shift);
    ceiling = vec2<u32>(0u, (mantissa >> r) + select(0u, 1u, (mantissa & ((1u << r) - 1u)) != 0u));
  }
  return less_u64(uniform, ceiling);
}

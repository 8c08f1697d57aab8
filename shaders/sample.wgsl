// sample: one categorical draw by inverse CDF from a row expression, with one Philox uniform u.
// Each invocation owns a contiguous chunk of tokens; an exclusive scan of the chunk sums places u·Σw in a
// chunk, which is walked in token order. The result is the first token whose cumulative weight exceeds
// u·Σw, never a zero-weight token, and the last positive token if rounding leaves u·Σw past the end,
// as in src/core/sampling.ts drawCategorical.
// f32 numerics: cumulative sums differ from the CPU's sequential f64 sums by about log2(V)·2^-24 of Σw;
// a draw within that distance of a bucket boundary is a documented tie.

fn draw(e: RowExpr, vocab: u32, u: f32) -> u32 {
  let chunk = (vocab + WG - 1u) / WG;
  let begin = min(vocab, lid * chunk);
  let end = min(vocab, begin + chunk);
  var chunk_mass = 0.0;
  var last_positive = NO_INDEX;
  for (var x = begin; x < end; x++) {
    let w = expr_at(e, x);
    chunk_mass += w;
    if (w > 0.0) {
      last_positive = x;
    }
  }
  let before = wg_exclusive_scan_f32(chunk_mass);
  let threshold = u * wg_sum_f32(chunk_mass);
  var found = NO_INDEX;
  if (threshold >= before && last_positive != NO_INDEX) {
    var cumulative = before;
    for (var x = begin; x < end; x++) {
      let w = expr_at(e, x);
      cumulative += w;
      if (threshold < cumulative && w > 0.0) {
        found = x;
        break;
      }
    }
  }
  let first = wg_min_u32(found);
  if (first != NO_INDEX) {
    return first;
  }
  return wg_max_u32(select(0u, last_positive, last_positive != NO_INDEX));
}

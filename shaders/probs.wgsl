// probs: logits rows to next-token probabilities, one workgroup per row, in the order of operations of
// src/core/sampling.ts (mask, greedy at T = 0, top-k, softmax, top-p). Requires workgroup.wgsl.
//
// f32 numerics:
// - Logits are ranked by an order-preserving u32 key of their f32 bits (+0 and −0 are one key), so top-k
//   and argmax are exact and tie to the lowest id, like the CPU twin on the same f32 logits.
// - top-k finds the k-th largest key by a 32-step radix search (one count reduction per bit), then the cut
//   among equal keys by a binary search on the id.
// - softmax subtracts the row maximum first: exp((logit − max) / T), summed by a tree reduction.
// - top-p finds the largest key whose upper tail holds mass ≥ p the same way, then the cut among equal keys.
//   Its masses are f32 sums, so where the CPU's cumulative f64 mass lies within about 1e-6 of p, the two
//   may keep a different number of tokens: a documented tie.
// - Status per row: 0 ok, 1 every token masked out, 2 a NaN or +Infinity logit (−Infinity means banned).

struct ProbRow {
  logits_offset: u32,
  probs_offset: u32,
  vocab: u32,
  /// First mask word of this row, or NO_INDEX for no mask (xgrammar layout: bit j&31 of word j>>5).
  mask_offset: u32,
  temperature: f32,
  /// 0 disables top-k.
  top_k: u32,
  /// 1 disables top-p.
  top_p: f32,
  status_index: u32,
}

const STATUS_OK: u32 = 0u;
const STATUS_ALL_MASKED: u32 = 1u;
const STATUS_NON_FINITE: u32 = 2u;

@group(0) @binding(0) var<storage, read> rows: array<ProbRow>;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> masks: array<u32>;
@group(0) @binding(3) var<storage, read_write> probs: array<f32>;
@group(0) @binding(4) var<storage, read_write> status: array<u32>;

var<private> row: ProbRow;

fn logit_at(x: u32) -> f32 {
  return logits[row.logits_offset + x];
}

/// NaN or +Infinity: the CPU twin rejects these.
fn is_bad(value: f32) -> bool {
  let bits = bitcast<u32>(value);
  return (bits & 0x7f800000u) == 0x7f800000u && bits != 0xff800000u;
}

fn is_allowed(x: u32) -> bool {
  if (bitcast<u32>(logit_at(x)) == 0xff800000u) {
    return false;
  }
  if (row.mask_offset == NO_INDEX) {
    return true;
  }
  return ((masks[row.mask_offset + (x >> 5u)] >> (x & 31u)) & 1u) == 1u;
}

/// Larger logits map to larger keys; every finite or −Infinity logit has a key above 0.
fn order_key(value: f32) -> u32 {
  let bits = bitcast<u32>(select(value, 0.0, value == 0.0));
  if ((bits & 0x80000000u) != 0u) {
    return ~bits;
  }
  return bits | 0x80000000u;
}

// The kept set: allowed tokens with key > cut_key, or key == cut_key and id < cut_id.
var<private> cut_key: u32 = 0u;
var<private> cut_id: u32 = 0u;

fn is_kept(x: u32) -> bool {
  if (!is_allowed(x)) {
    return false;
  }
  let key = order_key(logit_at(x));
  return key > cut_key || (key == cut_key && x < cut_id);
}

var<private> max_logit: f32;

fn weight(x: u32) -> f32 {
  return exp((logit_at(x) - max_logit) / row.temperature);
}

fn count_kept_at_or_above(key_floor: u32) -> u32 {
  var count = 0u;
  for (var x = lid; x < row.vocab; x += WG) {
    if (is_kept(x) && order_key(logit_at(x)) >= key_floor) {
      count += 1u;
    }
  }
  return wg_sum_u32(count);
}

fn count_kept_ties_below(key: u32, id_end: u32) -> u32 {
  var count = 0u;
  for (var x = lid; x < min(row.vocab, id_end); x += WG) {
    if (is_kept(x) && order_key(logit_at(x)) == key) {
      count += 1u;
    }
  }
  return wg_sum_u32(count);
}

fn mass_kept_at_or_above(key_floor: u32) -> f32 {
  var mass = 0.0;
  for (var x = lid; x < row.vocab; x += WG) {
    if (is_kept(x) && order_key(logit_at(x)) >= key_floor) {
      mass += weight(x);
    }
  }
  return wg_sum_f32(mass);
}

fn mass_kept_ties_below(key: u32, id_end: u32) -> f32 {
  var mass = 0.0;
  for (var x = lid; x < min(row.vocab, id_end); x += WG) {
    if (is_kept(x) && order_key(logit_at(x)) == key) {
      mass += weight(x);
    }
  }
  return wg_sum_f32(mass);
}

fn write_row(scale: f32, greedy_token: u32) {
  for (var x = lid; x < row.vocab; x += WG) {
    var p = 0.0;
    if (greedy_token != NO_INDEX) {
      p = select(0.0, 1.0, x == greedy_token);
    } else if (is_kept(x)) {
      p = weight(x) * scale;
    }
    probs[row.probs_offset + x] = p;
  }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
  lid = local;
  // Branches that reach a barrier must test a local copy: private variables count as non-uniform.
  let params = rows[workgroup.x];
  row = params;
  cut_key = 0u;
  cut_id = 0u;

  var bad = 0u;
  var allowed = 0u;
  var best_key = 0u;
  var best_id = NO_INDEX;
  for (var x = lid; x < params.vocab; x += WG) {
    let value = logit_at(x);
    if (is_bad(value)) {
      bad += 1u;
    } else if (is_allowed(x)) {
      allowed += 1u;
      let key = order_key(value);
      if (best_id == NO_INDEX || key > best_key) {
        best_key = key;
        best_id = x;
      }
    }
  }
  // One reduction for both counts: vocabularies stay below 2^21 tokens.
  let counts = wg_sum_u32(bad * 2097152u + allowed);
  let bad_total = counts / 2097152u;
  let allowed_total = counts % 2097152u;
  let max_key = wg_max_u32(select(0u, best_key, best_id != NO_INDEX));
  let argmax = wg_min_u32(select(NO_INDEX, best_id, best_id != NO_INDEX && best_key == max_key));
  if (bad_total > 0u || allowed_total == 0u) {
    if (lid == 0u) {
      status[params.status_index] = select(STATUS_ALL_MASKED, STATUS_NON_FINITE, bad_total > 0u);
    }
    return;
  }
  if (lid == 0u) {
    status[params.status_index] = STATUS_OK;
  }
  if (params.temperature == 0.0) {
    write_row(0.0, argmax);
    return;
  }
  max_logit = logit_at(argmax);

  if (params.top_k > 0u && params.top_k < allowed_total) {
    var kth_key = 0u;
    for (var bit = 31i; bit >= 0i; bit--) {
      let candidate = kth_key | (1u << u32(bit));
      if (count_kept_at_or_above(candidate) >= params.top_k) {
        kth_key = candidate;
      }
    }
    let needed = params.top_k - count_kept_at_or_above(kth_key + 1u);
    var low = 0u;
    var high = params.vocab;
    while (high - low > 1u) {
      let middle = (low + high) / 2u;
      if (count_kept_ties_below(kth_key, middle) >= needed) {
        high = middle;
      } else {
        low = middle;
      }
    }
    cut_key = kth_key;
    cut_id = high;
  }

  let total = mass_kept_at_or_above(0u);
  var nucleus = 1.0;
  if (params.top_p < 1.0) {
    var tail_key = 0u;
    for (var bit = 31i; bit >= 0i; bit--) {
      let candidate = tail_key | (1u << u32(bit));
      if (mass_kept_at_or_above(candidate) / total >= params.top_p) {
        tail_key = candidate;
      }
    }
    let above = mass_kept_at_or_above(tail_key + 1u) / total;
    var low = 0u;
    var high = params.vocab;
    while (high - low > 1u) {
      let middle = (low + high) / 2u;
      if (above + mass_kept_ties_below(tail_key, middle) / total >= params.top_p) {
        high = middle;
      } else {
        low = middle;
      }
    }
    // The nucleus lies inside the top-k set (masses above count only kept tokens), so this cut is tighter.
    cut_key = tail_key;
    cut_id = high;
    nucleus = mass_kept_at_or_above(0u) / total;
  }
  write_row(1.0 / (total * nucleus), NO_INDEX);
}

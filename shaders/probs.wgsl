// probs: logits rows to next-token probabilities, one workgroup per row, in the order of operations of
// src/core/sampling.ts (mask, greedy at T = 0, top-k, softmax, top-p).
// Requires: prob_records, workgroup.
//
// f32 numerics:
// - Logits are ranked by an order-preserving u32 key of their f32 bits (+0 and −0 are one key), so top-k
//   and argmax are exact and tie to the lowest id, like the CPU twin on the same f32 logits.
// - top-k finds the k-th largest key by a 32-step radix search (one count reduction per bit), then the cut
//   among equal keys by a binary search on the id.
// - softmax subtracts the row maximum first: exp((logit − max) / T); the mass is summed online with the
//   argmax and the counts in one fused reduction, rescaling partial sums when the running maximum moves.
// - top-p finds the largest key whose upper tail holds mass ≥ p the same way, then the cut among equal keys.
//   Its masses are f32 sums, so where the CPU's cumulative f64 mass lies within about 1e-6 of p, the two
//   may keep a different number of tokens: a documented tie.
// - Status per row: 0 ok, 1 every token masked out, 2 a NaN or +Infinity logit (−Infinity means banned).

// ProbRow comes from the generated `prob_records` module (src/gpu/shaders.ts, from PROB_ROW in kernels/probs.ts).

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

// One fused reduction summarises a row: the bad/allowed counts, the argmax (ties to the lowest id) and the
// softmax mass, kept online as (running max, mass relative to it) so no second pass over the row is needed.
struct RowSummary {
  counts: u32,
  best_key: u32,
  best_id: u32,
  running_max: f32,
  mass: f32,
}

var<workgroup> summaries: array<RowSummary, WG>;
var<workgroup> summary_result: RowSummary;

/// Merges two (max, mass) pairs whose masses are relative to their own maxima.
fn merge_mass(a: RowSummary, b: RowSummary, temperature: f32) -> vec2<f32> {
  if (b.mass == 0.0) {
    return vec2<f32>(a.running_max, a.mass);
  }
  if (a.mass == 0.0) {
    return vec2<f32>(b.running_max, b.mass);
  }
  let top = max(a.running_max, b.running_max);
  return vec2<f32>(top, a.mass * exp((a.running_max - top) / temperature) + b.mass * exp((b.running_max - top) / temperature));
}

fn merge_summary(a: RowSummary, b: RowSummary, temperature: f32) -> RowSummary {
  var merged = a;
  merged.counts = a.counts + b.counts;
  if (b.best_key > a.best_key || (b.best_key == a.best_key && b.best_id < a.best_id)) {
    merged.best_key = b.best_key;
    merged.best_id = b.best_id;
  }
  if (temperature > 0.0) {
    let mass = merge_mass(a, b, temperature);
    merged.running_max = mass.x;
    merged.mass = mass.y;
  }
  return merged;
}

fn summarize_row(vocab: u32, temperature: f32) -> RowSummary {
  var local = RowSummary(0u, 0u, NO_INDEX, 0.0, 0.0);
  for (var x = lid; x < vocab; x += WG) {
    let value = logit_at(x);
    if (is_bad(value)) {
      // One reduction carries both counts: vocabularies stay below 2^21 tokens.
      local.counts += 2097152u;
    } else if (is_allowed(x)) {
      local.counts += 1u;
      let key = order_key(value);
      if (local.best_id == NO_INDEX || key > local.best_key) {
        local.best_key = key;
        local.best_id = x;
      }
      if (temperature > 0.0) {
        let one = RowSummary(0u, 0u, NO_INDEX, value, 1.0);
        let mass = merge_mass(local, one, temperature);
        local.running_max = mass.x;
        local.mass = mass.y;
      }
    }
  }
  summaries[lid] = local;
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
    if (lid < stride) {
      summaries[lid] = merge_summary(summaries[lid], summaries[lid + stride], temperature);
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    summary_result = summaries[0];
  }
  return workgroupUniformLoad(&summary_result);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
  wg_enter(local);
  // Branches that reach a barrier must test a local copy: private variables count as non-uniform.
  let params = rows[workgroup.x];
  row = params;
  cut_key = 0u;
  cut_id = 0u;

  let summary = summarize_row(params.vocab, params.temperature);
  let bad_total = summary.counts / 2097152u;
  let allowed_total = summary.counts % 2097152u;
  let argmax = summary.best_id;
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

  let top_k_cuts = params.top_k > 0u && params.top_k < allowed_total;
  if (top_k_cuts) {
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

  // Without a top-k cut the fused summary already holds the softmax mass (relative to the same maximum).
  var total = summary.mass;
  if (top_k_cuts) {
    total = mass_kept_at_or_above(0u);
  }
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

// Workgroup-wide reductions shared by the probs and accept kernels. Every helper holds barriers, so it is
// called by all WG invocations in uniform control flow, and returns its result through
// workgroupUniformLoad so that callers may branch on it and stay uniform.
// Numerics: f32 tree sums (pairwise, order fixed by the invocation index), so a sum over V terms carries a
// relative error of about log2(V) · 2^-24, against the CPU's sequential f64 sums; u64 sums are exact.
// Requires: u64.

// The workgroup size, a power of two set per pipeline: wide for large vocabularies on real GPUs, narrow
// for small ones (SwiftShader's barriers cost in proportion to the invocations they wait for).
override WG: u32 = 256u;
const NO_INDEX: u32 = 0xffffffffu;

var<private> lid: u32;
var<workgroup> wg_f32: array<f32, WG>;
var<workgroup> wg_u32: array<u32, WG>;
var<workgroup> wg_result_f32: f32;
var<workgroup> wg_result_u32: u32;
var<workgroup> wg_u64: array<vec2<u32>, WG>;
var<workgroup> wg_total_u64: vec2<u32>;

/// Every entry point that uses these helpers calls this first, with its local_invocation_index.
fn wg_enter(local: u32) {
  lid = local;
}

fn wg_sum_f32(value: f32) -> f32 {
  wg_f32[lid] = value;
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
    if (lid < stride) {
      wg_f32[lid] = wg_f32[lid] + wg_f32[lid + stride];
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    wg_result_f32 = wg_f32[0];
  }
  return workgroupUniformLoad(&wg_result_f32);
}

const REDUCE_SUM: u32 = 0u;
const REDUCE_MIN: u32 = 1u;
const REDUCE_MAX: u32 = 2u;

fn combine_u32(a: u32, b: u32, op: u32) -> u32 {
  switch (op) {
    case REDUCE_MIN: {
      return min(a, b);
    }
    case REDUCE_MAX: {
      return max(a, b);
    }
    default: {
      return a + b;
    }
  }
}

fn wg_reduce_u32(value: u32, op: u32) -> u32 {
  wg_u32[lid] = value;
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
    if (lid < stride) {
      wg_u32[lid] = combine_u32(wg_u32[lid], wg_u32[lid + stride], op);
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    wg_result_u32 = wg_u32[0];
  }
  return workgroupUniformLoad(&wg_result_u32);
}

fn wg_sum_u32(value: u32) -> u32 {
  return wg_reduce_u32(value, REDUCE_SUM);
}

fn wg_min_u32(value: u32) -> u32 {
  return wg_reduce_u32(value, REDUCE_MIN);
}

fn wg_max_u32(value: u32) -> u32 {
  return wg_reduce_u32(value, REDUCE_MAX);
}

/// Exclusive prefix sum of one value per invocation (Hillis–Steele), for inverse-CDF draws.
fn wg_exclusive_scan_f32(value: f32) -> f32 {
  wg_f32[lid] = value;
  workgroupBarrier();
  for (var offset = 1u; offset < WG; offset = offset * 2u) {
    var addend = 0.0;
    if (lid >= offset) {
      addend = wg_f32[lid - offset];
    }
    workgroupBarrier();
    wg_f32[lid] = wg_f32[lid] + addend;
    workgroupBarrier();
  }
  var exclusive = 0.0;
  if (lid > 0u) {
    exclusive = wg_f32[lid - 1u];
  }
  workgroupBarrier();
  return exclusive;
}

struct ScanU64 {
  /// The sum of the values of the invocations below this one.
  before: vec2<u32>,
  /// The sum over the workgroup.
  total: vec2<u32>,
}

/// Exclusive prefix sum of one u64 (u64.wgsl) per invocation, exact, with the workgroup total.
fn wg_exclusive_scan_u64(value: vec2<u32>) -> ScanU64 {
  wg_u64[lid] = value;
  workgroupBarrier();
  for (var offset = 1u; offset < WG; offset = offset * 2u) {
    var addend = vec2<u32>(0u, 0u);
    if (lid >= offset) {
      addend = wg_u64[lid - offset];
    }
    workgroupBarrier();
    wg_u64[lid] = add_u64(wg_u64[lid], addend);
    workgroupBarrier();
  }
  var exclusive = vec2<u32>(0u, 0u);
  if (lid > 0u) {
    exclusive = wg_u64[lid - 1u];
  }
  if (lid == WG - 1u) {
    wg_total_u64 = wg_u64[lid];
  }
  return ScanU64(exclusive, workgroupUniformLoad(&wg_total_u64));
}

/// Invocation 0's value, made uniform for every invocation (for values read from read_write memory).
fn wg_broadcast_f32(value: f32) -> f32 {
  // The barrier keeps invocation 0 from overwriting the slot while others still read its last value.
  workgroupBarrier();
  if (lid == 0u) {
    wg_result_f32 = value;
  }
  return workgroupUniformLoad(&wg_result_f32);
}

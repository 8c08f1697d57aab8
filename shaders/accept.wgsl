// accept: the decision logic of every verifier, one workgroup per verification problem, mirroring
// src/core/verify line by line: the same choices in the same order, each consuming the next two Philox
// words of the problem's stream as one 64-bit uniform (exact Bernoulli and categorical draws, sample.wgsl),
// as the CPU twin's rngSource does. All WG invocations
// run the scalar logic together, so that each vocabulary-wide residual mass or draw is a workgroup
// reduction (residual.wgsl, sample.wgsl); every branch reads uniform values only.
// Requires: verify_records, philox, workgroup, ratios, residual, sample.
//
// f32 numerics: probabilities come from the probs kernel in f32; h_i = Z_i / (Z_i + (1 − w_i)), with 1 − w
// taken first so h ≤ 1, and h = 1 when the denominator is 0; ρ* is bisected until f32 can split the
// bracket no further (about 2^-24 relative; the CPU goes to 1e-15). A decision where the uniform lies
// within ε of its threshold may differ from the f64 CPU reference: a tie, counted by the twin test.
//
// Outcome record (u32 words at out_offset): status, draft, accepted, words consumed, the accepted tokens
// and the final (correction or bonus) token, then the block trace (GBV and SpecTr-GBV, for the step
// inspector): the block start, and for block positions i = 0..L the f32 bits of w_i, Z_i and h_i (NaN where
// not computed), as BlockTrace in src/core/verify/types.ts. Status (OUTCOME_STATUS in src/gpu/verifier.ts):
// ok, a probability row failed in the probs kernel, a drafted token lies outside the vocabulary or has
// draft probability 0, or a method code with no case here (the host throws).

// METHOD_* (one per registry entry with a WGSL case), MAX_DRAFTS, MAX_DRAFT_LENGTH, the OUTCOME_* status
// codes and the Problem struct come from the generated `verify_records` module (src/gpu/shaders.ts).
const TRACE_SLOTS: u32 = MAX_DRAFT_LENGTH + 1u;

struct Decision {
  draft: u32,
  accepted: u32,
  final_token: u32,
}

struct Block {
  tau: u32,
  residual: RowExpr,
  fallback: u32,
}

const NAN_BITS: u32 = 0x7fc00000u;

// The last GBV block's scalars as f32 bits (WGSL may not carry a NaN value, but can carry its bits); every
// invocation holds the same values, and invocation 0 writes them out.
var<private> trace_start: u32;
var<private> trace_weights: array<u32, TRACE_SLOTS>;
var<private> trace_masses: array<u32, TRACE_SLOTS>;
var<private> trace_stops: array<u32, TRACE_SLOTS>;
var<private> trace_recorded: bool;

@group(0) @binding(0) var<storage, read> problems: array<Problem>;
@group(0) @binding(2) var<storage, read> drafts: array<u32>;
@group(0) @binding(3) var<storage, read> row_status: array<u32>;
@group(0) @binding(5) var<storage, read_write> outcomes: array<u32>;

fn target_row(pr: Problem, k: u32, j: u32) -> u32 {
  return pr.probs_offset + (k * (pr.draft_length + 1u) + j) * pr.vocab;
}

fn draft_row(pr: Problem, k: u32, j: u32) -> u32 {
  return pr.probs_offset + (pr.draft_count * (pr.draft_length + 1u) + k * pr.draft_length + j) * pr.vocab;
}

fn token(pr: Problem, k: u32, j: u32) -> u32 {
  return drafts[pr.drafts_offset + k * pr.draft_length + j];
}

/// The next 64-bit uniform of the problem's stream: two words, high first (src/core/random.ts).
fn next_uniform(pr: Problem, word: ptr<function, u32>) -> vec2<u32> {
  let index = pr.first_word + *word;
  *word = *word + 2u;
  return vec2<u32>(philox_word(pr.key, pr.stream, index), philox_word(pr.key, pr.stream, index + 1u));
}

fn bernoulli(pr: Problem, word: ptr<function, u32>, p: f32) -> bool {
  return bernoulli_from_words(p, next_uniform(pr, word));
}

fn draw_from(pr: Problem, word: ptr<function, u32>, e: RowExpr) -> u32 {
  return draw(e, pr.vocab, next_uniform(pr, word));
}

/// drawResidual of src/core/verify/view.ts: the residual, or the fallback row when rounding emptied it.
fn draw_residual(pr: Problem, word: ptr<function, u32>, e: RowExpr, fallback: u32) -> u32 {
  if (expr_mass(e, pr.vocab) > 0.0) {
    return draw_from(pr, word, e);
  }
  return draw_from(pr, word, row_expr(fallback));
}

fn verify_tokenwise(pr: Problem, word: ptr<function, u32>) -> Decision {
  for (var j = 0u; j < pr.draft_length; j++) {
    let x = token(pr, 0u, j);
    let target_at = target_row(pr, 0u, j);
    let draft = draft_row(pr, 0u, j);
    if (bernoulli(pr, word, capped_ratio(probs[target_at + x], probs[draft + x]))) {
      continue;
    }
    return Decision(0u, j, draw_residual(pr, word, residual_expr(target_at, draft, 1.0), target_at));
  }
  return Decision(0u, pr.draft_length, draw_from(pr, word, row_expr(target_row(pr, 0u, pr.draft_length))));
}

/// greedyBlock of src/core/verify/gbv.ts on d_k[start..L), the scratch row as root target when has_root.
fn gbv_block(pr: Problem, word: ptr<function, u32>, k: u32, start: u32, has_root: bool) -> Block {
  let n = pr.draft_length - start;
  var log_weights: array<f32, TRACE_SLOTS>;
  log_weights[0] = 0.0;
  for (var i = 1u; i <= n; i++) {
    let x = token(pr, k, start + i - 1u);
    var target_at = probs[target_row(pr, k, start + i - 1u) + x];
    if (i == 1u && has_root) {
      target_at = wg_broadcast_f32(row_value(scratch_source(pr.scratch_offset), x));
    }
    log_weights[i] = capped_log_weight(log_weights[i - 1u], target_at, probs[draft_row(pr, k, start + i - 1u) + x]);
  }
  trace_recorded = true;
  trace_start = start;
  for (var i = 0u; i <= MAX_DRAFT_LENGTH; i++) {
    trace_weights[i] = select(NAN_BITS, bitcast<u32>(weight_from_log(log_weights[min(i, n)])), i <= n);
    trace_masses[i] = NAN_BITS;
    trace_stops[i] = NAN_BITS;
  }
  trace_stops[n] = bitcast<u32>(weight_from_log(log_weights[n]));
  if (bernoulli(pr, word, weight_from_log(log_weights[n]))) {
    return Block(n, row_expr(0u), 0u);
  }
  for (var i = n - 1u; i >= 1u; i--) {
    let w = weight_from_log(log_weights[i]);
    let target_at = target_row(pr, k, start + i);
    let residual = residual_expr(target_at, draft_row(pr, k, start + i), w);
    let mass = expr_mass(residual, pr.vocab);
    let denominator = mass + (1.0 - w);
    let stop = select(mass / denominator, 1.0, denominator == 0.0);
    trace_masses[i] = bitcast<u32>(mass);
    trace_stops[i] = bitcast<u32>(stop);
    if (bernoulli(pr, word, stop)) {
      return Block(i, residual, target_at);
    }
  }
  let root = select(target_row(pr, k, start), scratch_source(pr.scratch_offset), has_root);
  return Block(0u, residual_expr(root, draft_row(pr, k, start), 1.0), root);
}

fn verify_gbv(pr: Problem, word: ptr<function, u32>) -> Decision {
  let block = gbv_block(pr, word, 0u, 0u, false);
  if (block.tau == pr.draft_length) {
    return Decision(0u, block.tau, draw_from(pr, word, row_expr(target_row(pr, 0u, pr.draft_length))));
  }
  return Decision(0u, block.tau, draw_residual(pr, word, block.residual, block.fallback));
}

fn shares_prefix(pr: Problem, k: u32, other: u32, length: u32) -> bool {
  for (var j = 0u; j < length; j++) {
    if (token(pr, k, j) != token(pr, other, j)) {
      return false;
    }
  }
  return true;
}

/// verifySpectrGbv of src/core/verify/spectrGbv.ts: recursive GBV.
fn verify_spectr_gbv(pr: Problem, word: ptr<function, u32>) -> Decision {
  var used = 0u;
  var accepted = 0u;
  var current = 0u;
  var has_root = false;
  loop {
    var next = NO_INDEX;
    for (var k = 0u; k < pr.draft_count; k++) {
      if ((used & (1u << k)) == 0u && (accepted == 0u || shares_prefix(pr, k, current, accepted))) {
        next = k;
        break;
      }
    }
    if (next == NO_INDEX) {
      return Decision(current, accepted, draw_from(pr, word, row_expr(scratch_source(pr.scratch_offset))));
    }
    used = used | (1u << next);
    let block = gbv_block(pr, word, next, accepted, has_root);
    if (accepted + block.tau == pr.draft_length) {
      return Decision(next, pr.draft_length, draw_from(pr, word, row_expr(target_row(pr, next, pr.draft_length))));
    }
    current = next;
    accepted += block.tau;
    store_scratch(scratch_source(pr.scratch_offset), block.residual, expr_mass(block.residual, pr.vocab), block.fallback, pr.vocab);
    has_root = true;
  }
}

fn int_pow(base: f32, exponent: u32) -> f32 {
  var result = 1.0;
  for (var i = 0u; i < exponent; i++) {
    result *= base;
  }
  return result;
}

fn kseq_feasible(pr: Problem, target_at: u32, draft: u32, m: u32, rho: f32) -> bool {
  let beta = expr_mass(RowExpr(EXPR_OVERLAP, target_at, draft, 1.0, rho, 1.0), pr.vocab);
  return 1.0 - int_pow(1.0 - beta, m) <= rho * beta;
}

/// optimalRho of src/core/verify/spectr.ts, bisected to f32 resolution.
fn optimal_rho(pr: Problem, target_at: u32, draft: u32, m: u32) -> f32 {
  if (kseq_feasible(pr, target_at, draft, m, 1.0)) {
    return 1.0;
  }
  var low = 1.0;
  var high = f32(m);
  for (var step = 0u; step < 60u; step++) {
    let middle = (low + high) * 0.5;
    if (middle <= low || middle >= high) {
      break;
    }
    if (kseq_feasible(pr, target_at, draft, m, middle)) {
      high = middle;
    } else {
      low = middle;
    }
  }
  return high;
}

/// verifyTree of src/core/verify/spectr.ts, with K-SEQ or recursive rejection at each node.
fn verify_tree(pr: Problem, word: ptr<function, u32>, kseq: bool) -> Decision {
  let scratch_row = scratch_source(pr.scratch_offset);
  var candidates: array<u32, MAX_DRAFTS>;
  for (var k = 0u; k < pr.draft_count; k++) {
    candidates[k] = k;
  }
  var count = pr.draft_count;
  for (var depth = 0u; depth < pr.draft_length; depth++) {
    let lead = candidates[0];
    let target_at = target_row(pr, lead, depth);
    let draft = draft_row(pr, lead, depth);
    var chosen = NO_INDEX;
    var correction = NO_INDEX;
    if (kseq) {
      let rho = optimal_rho(pr, target_at, draft, count);
      for (var i = 0u; i < count; i++) {
        let x = token(pr, candidates[i], depth);
        if (bernoulli(pr, word, min(1.0, probs[target_at + x] / (rho * probs[draft + x])))) {
          chosen = i;
          break;
        }
      }
      if (chosen == NO_INDEX) {
        let beta = expr_mass(RowExpr(EXPR_OVERLAP, target_at, draft, 1.0, rho, 1.0), pr.vocab);
        if (beta == 0.0) {
          correction = draw_from(pr, word, row_expr(target_at));
        } else {
          let scale = (1.0 - int_pow(1.0 - beta, count)) / beta;
          correction = draw_residual(pr, word, RowExpr(EXPR_KSEQ_RESIDUAL, target_at, draft, 1.0, rho, scale), target_at);
        }
      }
    } else {
      // The remaining target lives in scratch; each rejection moves it to norm(max(0, remaining − draft)).
      store_scratch(scratch_row, row_expr(target_at), 1.0, target_at, pr.vocab);
      for (var i = 0u; i < count; i++) {
        let x = token(pr, candidates[i], depth);
        let remaining = wg_broadcast_f32(row_value(scratch_row, x));
        if (bernoulli(pr, word, min(1.0, remaining / probs[draft + x]))) {
          chosen = i;
          break;
        }
        let residual = residual_expr(scratch_row, draft, 1.0);
        let mass = expr_mass(residual, pr.vocab);
        if (mass > 0.0) {
          store_scratch(scratch_row, residual, mass, scratch_row, pr.vocab);
        }
      }
      if (chosen == NO_INDEX) {
        correction = draw_from(pr, word, row_expr(scratch_row));
      }
    }
    if (chosen == NO_INDEX) {
      return Decision(lead, depth, correction);
    }
    let accepted_token = token(pr, candidates[chosen], depth);
    var kept = 0u;
    for (var i = 0u; i < count; i++) {
      let k = candidates[i];
      if (token(pr, k, depth) == accepted_token) {
        candidates[kept] = k;
        kept++;
      }
    }
    count = kept;
  }
  let lead = candidates[0];
  return Decision(lead, pr.draft_length, draw_from(pr, word, row_expr(target_row(pr, lead, pr.draft_length))));
}

/// 0 when every probability row is sound and every drafted token could have been sampled.
fn check_problem(pr: Problem) -> u32 {
  let rows = pr.draft_count * (2u * pr.draft_length + 1u);
  for (var r = 0u; r < rows; r++) {
    if (row_status[pr.status_offset + r] != 0u) {
      return OUTCOME_ROW_FAILED;
    }
  }
  for (var k = 0u; k < pr.draft_count; k++) {
    for (var j = 0u; j < pr.draft_length; j++) {
      let x = token(pr, k, j);
      if (x >= pr.vocab || probs[draft_row(pr, k, j) + x] <= 0.0) {
        return OUTCOME_UNSAMPLEABLE_DRAFT;
      }
    }
  }
  return OUTCOME_OK;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
  wg_enter(local);
  let pr = problems[workgroup.x];
  var status = check_problem(pr);
  trace_recorded = false;
  var word = 0u;
  var decision = Decision(0u, 0u, 0u);
  if (status == OUTCOME_OK) {
    switch (pr.method) {
      case METHOD_TOKENWISE: {
        decision = verify_tokenwise(pr, &word);
      }
      case METHOD_GBV: {
        decision = verify_gbv(pr, &word);
      }
      case METHOD_SPECTR: {
        decision = verify_tree(pr, &word, true);
      }
      case METHOD_SPECTR_GBV: {
        decision = verify_spectr_gbv(pr, &word);
      }
      case METHOD_RECURSIVE_REJECTION: {
        decision = verify_tree(pr, &word, false);
      }
      default: {
        status = OUTCOME_UNKNOWN_METHOD;
      }
    }
  }
  if (lid == 0u) {
    let out = pr.out_offset;
    outcomes[out] = status;
    outcomes[out + 1u] = decision.draft;
    outcomes[out + 2u] = decision.accepted;
    outcomes[out + 3u] = word;
    for (var j = 0u; j < decision.accepted; j++) {
      outcomes[out + 4u + j] = token(pr, decision.draft, j);
    }
    outcomes[out + 4u + decision.accepted] = decision.final_token;
    let trace = out + 5u + pr.draft_length;
    outcomes[trace] = select(NO_INDEX, trace_start, trace_recorded);
    for (var i = 0u; i <= pr.draft_length; i++) {
      outcomes[trace + 1u + 3u * i] = select(NAN_BITS, trace_weights[i], trace_recorded);
      outcomes[trace + 2u + 3u * i] = select(NAN_BITS, trace_masses[i], trace_recorded);
      outcomes[trace + 3u + 3u * i] = select(NAN_BITS, trace_stops[i], trace_recorded);
    }
  }
}

// residual: row expressions evaluated token by token, and their vocabulary-wide masses as workgroup
// reductions: the GBV residual R_i = max(0, w_i · t − q) and its mass Z_i, the token-wise residual
// (w = 1), K-SEQ's overlap min(q, t/ρ) (whose mass is β(ρ)) and residual, and plain rows.
// A row source is a float offset into `probs`, or scratch_source(offset): a row of `scratch` (a normalised
// residual that became the root target of recursive GBV, or recursive rejection's remaining target).
// f32 numerics: masses are tree sums (see workgroup.wgsl); max(0, ·) clamps rounding below zero, as the CPU.
// Owns the two row bindings every user of row expressions shares: probs (group 0, binding 1) and scratch
// (binding 4).
// Requires: workgroup.

@group(0) @binding(1) var<storage, read> probs: array<f32>;
@group(0) @binding(4) var<storage, read_write> scratch: array<f32>;

/// Row sources with this bit set name a scratch row (offsets stay below 2^31 floats).
const SCRATCH_BIT: u32 = 0x80000000u;

fn scratch_source(offset: u32) -> u32 {
  return SCRATCH_BIT | offset;
}
const EXPR_ROW: u32 = 0u;
const EXPR_RESIDUAL: u32 = 1u;
const EXPR_KSEQ_RESIDUAL: u32 = 2u;
const EXPR_OVERLAP: u32 = 3u;

struct RowExpr {
  kind: u32,
  a: u32,
  b: u32,
  /// The weight w of a GBV residual.
  alpha: f32,
  /// K-SEQ's ρ.
  rho: f32,
  /// K-SEQ's (1 − (1 − β)^m) / β.
  scale: f32,
}

fn row_expr(source: u32) -> RowExpr {
  return RowExpr(EXPR_ROW, source, 0u, 1.0, 1.0, 1.0);
}

fn residual_expr(target_at: u32, draft: u32, weight: f32) -> RowExpr {
  return RowExpr(EXPR_RESIDUAL, target_at, draft, weight, 1.0, 1.0);
}

fn row_value(source: u32, x: u32) -> f32 {
  if ((source & SCRATCH_BIT) != 0u) {
    return scratch[(source & ~SCRATCH_BIT) + x];
  }
  return probs[source + x];
}

fn expr_at(e: RowExpr, x: u32) -> f32 {
  let a = row_value(e.a, x);
  switch (e.kind) {
    case EXPR_RESIDUAL: {
      return max(0.0, e.alpha * a - row_value(e.b, x));
    }
    case EXPR_KSEQ_RESIDUAL: {
      return max(0.0, a - min(row_value(e.b, x), a / e.rho) * e.scale);
    }
    case EXPR_OVERLAP: {
      return min(row_value(e.b, x), a / e.rho);
    }
    default: {
      return a;
    }
  }
}

fn expr_mass(e: RowExpr, vocab: u32) -> f32 {
  var mass = 0.0;
  for (var x = lid; x < vocab; x += WG) {
    mass += expr_at(e, x);
  }
  return wg_sum_f32(mass);
}

/// The scratch row `destination` ← e / mass (or ← the fallback row when the mass is 0: rounding made an empty
/// residual). In place is safe: each invocation reads and writes only its own tokens.
fn store_scratch(destination: u32, e: RowExpr, mass: f32, fallback: u32, vocab: u32) {
  for (var x = lid; x < vocab; x += WG) {
    var value = 0.0;
    if (mass > 0.0) {
      value = expr_at(e, x) / mass;
    } else {
      value = row_value(fallback, x);
    }
    scratch[(destination & ~SCRATCH_BIT) + x] = value;
  }
  storageBarrier();
}

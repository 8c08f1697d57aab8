// ratios: target/draft probability ratios of drafted tokens and GBV's running capped products, in log
// space: log w_i = min(0, log w_{i−1} + log t_i(x_i) − log q_i(x_i)).
// f32 numerics: a target probability of 0 gives LOG_ZERO (w = 0 exactly, and it stays 0); w = 1 exactly
// whenever the cap binds, since exp(0) = 1. Elsewhere w carries a relative error of a few 2^-24 per step
// against the CPU's direct f64 product; decisions that differ only through it are ties within ε.
// Requires: nothing.

const LOG_ZERO: f32 = -1.0e30;

fn log_ratio(target_p: f32, draft: f32) -> f32 {
  if (target_p <= 0.0) {
    return LOG_ZERO;
  }
  return log(target_p) - log(draft);
}

fn capped_log_weight(previous: f32, target_p: f32, draft: f32) -> f32 {
  if (previous <= LOG_ZERO || target_p <= 0.0) {
    return LOG_ZERO;
  }
  return min(0.0, previous + log_ratio(target_p, draft));
}

fn weight_from_log(log_weight: f32) -> f32 {
  if (log_weight <= LOG_ZERO) {
    return 0.0;
  }
  return exp(log_weight);
}

/// min(1, target / draft): token-wise and K-SEQ acceptance (draft > 0 is checked before any decision).
fn capped_ratio(target_p: f32, draft: f32) -> f32 {
  return min(1.0, target_p / draft);
}

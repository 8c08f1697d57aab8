// A probe for tests: each entry point evaluates one production WGSL function on inputs given in buffers.
// params: [vocab, key.x, key.y, stream, first word, count]. The row is probs[0..vocab) (residual.wgsl's
// binding 1); Bernoulli parameters are probs[i].
// Requires: philox, sample.

@group(0) @binding(0) var<storage, read> queries: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> results: array<u32>;
@group(0) @binding(3) var<storage, read> params: array<u32>;

/// One draw per workgroup, on the 64-bit uniform queries[w].
@compute @workgroup_size(WG)
fn draw_probe(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
  wg_enter(local);
  let token = draw(row_expr(0u), params[0], queries[workgroup.x]);
  if (local == 0u) {
    results[workgroup.x] = token;
  }
}

/// One Bernoulli per invocation: probs[i] on queries[i].
@compute @workgroup_size(64)
fn bernoulli_probe(@builtin(global_invocation_id) id: vec3<u32>) {
  if (id.x < params[5]) {
    results[id.x] = select(0u, 1u, bernoulli_from_words(probs[id.x], queries[id.x]));
  }
}

/// Words first_word.. of a Philox stream, one per invocation.
@compute @workgroup_size(64)
fn philox_probe(@builtin(global_invocation_id) id: vec3<u32>) {
  if (id.x < params[5]) {
    results[id.x] = philox_word(vec2<u32>(params[1], params[2]), params[3], params[4] + id.x);
  }
}

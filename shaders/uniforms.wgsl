// The uniforms a verification step consumes, one word each (src/core/rng.ts: f32 recipe), generated in
// parallel so the decision kernels can index them. Requires philox.wgsl, prepended by the wrapper.

struct UniformsParams {
  key: vec2<u32>,
  stream: u32,
  first_word: u32,
  count: u32,
}

@group(0) @binding(0) var<uniform> params: UniformsParams;
@group(0) @binding(1) var<storage, read_write> words: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  if (id.x >= params.count) {
    return;
  }
  words[id.x] = philox_word(params.key, params.stream, params.first_word + id.x);
}

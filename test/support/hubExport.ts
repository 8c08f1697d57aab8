/**
 * A bundled model as a Hub (Optimum) export would be: the same graph without our `tree_attention_mask`
 * input. The input is replaced by all ones of shape [batch, seq, seq] computed inside the graph (Shape,
 * Concat, ConstantOfShape), so the model still runs and gives the same logits, but a session sees only the
 * Optimum inputs. Edits the protobuf directly: ModelProto.graph (7), GraphProto.node (1) and .input (11).
 * `hubReader` serves a bundled directory as a Hub repository: config.json, no manifest, that model.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ModelFileMissingError, MODEL_FILE, type FileReader } from '../../src/models/loader';
import { directoryReader } from './models';
import { protoFields as fields } from '../../src/models/onnxProto';
import { bytesField, concat, intField } from '../../tools/replica/onnx';

const TREE_MASK = 'tree_attention_mask';

/** NodeProto: input 1, output 2, name 3, op_type 4, attribute 5. */
function node(op: string, inputs: string[], output: string, attributes: Uint8Array[] = []): Uint8Array {
  return concat([
    ...inputs.map((input) => bytesField(1, input)),
    bytesField(2, output),
    bytesField(3, `hub_${output}`),
    bytesField(4, op),
    ...attributes.map((a) => bytesField(5, a)),
  ]);
}

/** AttributeProto: name 1, i 3, t 5, type 20 (INT 2, TENSOR 4). */
const intAttribute = (name: string, value: number) =>
  concat([bytesField(1, name), intField(3, value), intField(20, 2)]);
// TensorProto: dims 1, data_type 2 (INT64 7), raw_data 9: the int64 one, [1].
const oneInt64 = concat([intField(1, 1), intField(2, 7), bytesField(9, new Uint8Array([1, 0, 0, 0, 0, 0, 0, 0]))]);
const tensorAttribute = (name: string, tensor: Uint8Array) =>
  concat([bytesField(1, name), bytesField(5, tensor), intField(20, 4)]);

const nameOf = (valueInfo: Uint8Array) =>
  new TextDecoder().decode(fields(valueInfo).find((field) => field.number === 1)?.payload);

export function withoutTreeMaskInput(model: Uint8Array): Uint8Array {
  const top = fields(model);
  const graphField = top.find((field) => field.number === 7);
  if (!graphField?.payload) throw new Error('the ONNX model has no graph');
  const graph = fields(graphField.payload);
  const kept = graph.filter((field) => !(field.number === 11 && field.payload && nameOf(field.payload) === TREE_MASK));
  if (kept.length === graph.length) throw new Error(`the ONNX model has no ${TREE_MASK} input`);
  const ones = [
    node('Shape', ['input_ids'], 'tree_mask_batch_seq'),
    node('Shape', ['input_ids'], 'tree_mask_seq', [intAttribute('start', 1)]),
    node('Concat', ['tree_mask_batch_seq', 'tree_mask_seq'], 'tree_mask_shape', [intAttribute('axis', 0)]),
    node('ConstantOfShape', ['tree_mask_shape'], TREE_MASK, [tensorAttribute('value', oneInt64)]),
  ].map((payload) => bytesField(1, payload));
  const newGraph = concat([...ones, ...kept.map((field) => field.bytes)]);
  return concat(top.map((field) => (field === graphField ? bytesField(7, newGraph) : field.bytes)));
}

/** A Hub-style config.json for a bundled model, from its manifest. */
export function hubConfig(dir: string): string {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    architecture: { vocab_size: number; context_length: number; layers: number; heads: number; width: number };
    tokenizer: { stop_token_id: number };
  };
  const { architecture, tokenizer } = manifest;
  return JSON.stringify({
    model_type: 'gpt2',
    vocab_size: architecture.vocab_size,
    n_positions: architecture.context_length,
    n_layer: architecture.layers,
    n_head: architecture.heads,
    n_embd: architecture.width,
    eos_token_id: tokenizer.stop_token_id,
  });
}

/** A bundled model directory read as a Hub repository: config.json and the model without the tree mask input. */
export function hubReader(dir: string): FileReader {
  const files = directoryReader(dir);
  return async (path) => {
    if (path === 'manifest.json') throw new ModelFileMissingError(`${dir} as a Hub repository has no manifest.json`);
    if (path === 'config.json') return new TextEncoder().encode(hubConfig(dir));
    const bytes = await files(path);
    return path === MODEL_FILE ? withoutTreeMaskInput(bytes) : bytes;
  };
}

/**
 * A damaged copy of a model directory for load tests: one float of a named initializer set to NaN in the
 * ONNX bytes (read with a minimal protobuf walk: ModelProto.graph = 7, GraphProto.initializer = 5,
 * TensorProto.name = 8, raw_data = 9), and the manifest's sha256 and size recomputed, so that only a check
 * of the model's numbers can tell.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The fields of one protobuf message: field number, wire type, and where its value lies. */
function* fields(
  bytes: Uint8Array,
  start: number,
  end: number,
): Generator<{ field: number; wire: number; from: number; to: number }> {
  let at = start;
  const varint = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[at++] as number;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < end) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key % 8;
    const from = at;
    if (wire === 0) varint();
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const length = varint();
      yield { field, wire, from: at, to: at + length };
      at += length;
      continue;
    } else throw new Error(`protobuf wire type ${wire} at ${from}`);
    yield { field, wire, from, to: at };
  }
}

/** Where the raw float32 data of the initializer `name` lies in an ONNX file's bytes. */
export function initializerData(bytes: Uint8Array, name: string): { from: number; to: number } {
  const child = (from: number, to: number, field: number) =>
    [...fields(bytes, from, to)].filter((entry) => entry.field === field && entry.wire === 2);
  for (const graph of child(0, bytes.length, 7)) {
    for (const tensor of child(graph.from, graph.to, 5)) {
      const named = child(tensor.from, tensor.to, 8)[0];
      if (!named || new TextDecoder().decode(bytes.subarray(named.from, named.to)) !== name) continue;
      const raw = child(tensor.from, tensor.to, 9)[0];
      if (raw) return raw;
    }
  }
  throw new Error(`no initializer ${name} with raw data`);
}

/**
 * A copy of `directory` (a model in the Hub layout with a manifest) whose `initializer` holds `value` at its
 * first float, and whose manifest's tokenizer fields are overridden by `tokenizer`.
 */
export function damagedCopy(
  directory: string,
  initializer: string,
  value = Number.NaN,
  tokenizer: Record<string, unknown> = {},
): string {
  const copy = join(mkdtempSync(join(tmpdir(), 'speclab-damaged-')), 'model');
  cpSync(directory, copy, { recursive: true });
  const modelPath = join(copy, 'onnx/model.onnx');
  const bytes = new Uint8Array(readFileSync(modelPath));
  const { from } = initializerData(bytes, initializer);
  new DataView(bytes.buffer, bytes.byteOffset).setFloat32(from, value, true);
  writeFileSync(modelPath, bytes);
  const manifestPath = join(copy, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    tokenizer?: Record<string, unknown>;
    files: { path: string; bytes: number; sha256: string }[];
  };
  // A draft head's manifest has no tokenizer.
  if (manifest.tokenizer) Object.assign(manifest.tokenizer, tokenizer);
  for (const file of manifest.files) {
    if (file.path !== 'onnx/model.onnx') continue;
    file.sha256 = createHash('sha256').update(bytes).digest('hex');
    file.bytes = bytes.length;
  }
  writeFileSync(manifestPath, JSON.stringify(manifest));
  return copy;
}

/**
 * Just enough of the ONNX protobuf to read what a loader must know before onnxruntime opens a model: the
 * files its weights live in (TensorProto.external_data `location`), so that a Hub export's
 * onnx/model.onnx_data is fetched beside it, or its absence said by name.
 */

export function readVarint(bytes: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  let scale = 1;
  for (;;) {
    if (at >= bytes.length) throw new RangeError('a protobuf varint runs past the end of the message');
    const byte = bytes[at++] as number;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, at];
    scale *= 128;
  }
}

export interface ProtoField {
  number: number;
  /** The whole field, key included. */
  bytes: Uint8Array;
  /** A length-delimited field's payload. */
  payload: Uint8Array | undefined;
}

/** The top-level fields of one protobuf message, in order. */
export function protoFields(bytes: Uint8Array): ProtoField[] {
  const out: ProtoField[] = [];
  let at = 0;
  while (at < bytes.length) {
    const start = at;
    const [key, afterKey] = readVarint(bytes, at);
    const wire = key & 7;
    let payload: Uint8Array | undefined;
    if (wire === 0) at = readVarint(bytes, afterKey)[1];
    else if (wire === 1) at = afterKey + 8;
    else if (wire === 5) at = afterKey + 4;
    else if (wire === 2) {
      const [length, afterLength] = readVarint(bytes, afterKey);
      payload = bytes.subarray(afterLength, afterLength + length);
      at = afterLength + length;
    } else throw new RangeError(`unexpected protobuf wire type ${wire}`);
    if (at > bytes.length) throw new RangeError('a protobuf field runs past the end of the message');
    out.push({ number: Math.floor(key / 8), bytes: bytes.subarray(start, at), payload });
  }
  return out;
}

const decoder = new TextDecoder();

/**
 * The external data files a model's initializers name (ModelProto.graph 7 → GraphProto.initializer 5 →
 * TensorProto.external_data 13 → StringStringEntryProto key 1 / value 2, key `location`), in first-seen order.
 */
export function externalDataFiles(model: Uint8Array): string[] {
  const files = new Set<string>();
  for (const graph of protoFields(model)) {
    if (graph.number !== 7 || !graph.payload) continue;
    for (const initializer of protoFields(graph.payload)) {
      if (initializer.number !== 5 || !initializer.payload) continue;
      for (const entry of protoFields(initializer.payload)) {
        if (entry.number !== 13 || !entry.payload) continue;
        const parts = protoFields(entry.payload);
        const key = parts.find((part) => part.number === 1)?.payload;
        const value = parts.find((part) => part.number === 2)?.payload;
        if (key && value && decoder.decode(key) === 'location') files.add(decoder.decode(value));
      }
    }
  }
  return [...files];
}

/**
 * A small ONNX writer: enough of onnx.proto (ModelProto, GraphProto, NodeProto, TensorProto, ValueInfoProto)
 * to write a decoder graph without PyTorch, the way CI builds model replicas. Field numbers are onnx.proto's;
 * every message is length-delimited protobuf written by hand (no schema compiler, no dependency).
 */

const encoder = new TextEncoder();

/** Protobuf varint of a non-negative or negative (two's complement, 10 bytes) 64-bit integer. */
function varint(value: number | bigint): number[] {
  let rest = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  while (rest >= 0x80n) {
    out.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  out.push(Number(rest));
  return out;
}

type Part = Uint8Array | number[];

export function concat(parts: readonly Part[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

export const bytesField = (number: number, payload: Uint8Array | string): Uint8Array => {
  const data = typeof payload === 'string' ? encoder.encode(payload) : payload;
  return concat([varint(number * 8 + 2), varint(data.length), data]);
};
export const intField = (number: number, value: number | bigint): number[] => [...varint(number * 8), ...varint(value)];
const floatField = (number: number, value: number): Uint8Array => {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setFloat32(0, value, true);
  return concat([varint(number * 8 + 5), bytes]);
};

/** TensorProto.DataType values. */
export const DataType = { float: 1, uint8: 2, int8: 3, int32: 6, int64: 7, bool: 9, float16: 10 } as const;
export type ElementType = keyof typeof DataType;

/** A dimension: a number, or a symbolic name (`batch_size`, `past_sequence_length`). */
export type Dim = number | string;

export type Attribute = number | number[] | string | { float: number } | { tensor: TensorValue };

export interface TensorValue {
  type: ElementType;
  dims: readonly number[];
  /** The tensor's bytes, little-endian, as onnx raw_data holds them. */
  raw: Uint8Array;
}

export interface NodeSpec {
  op: string;
  inputs: readonly string[];
  outputs: readonly string[];
  attributes?: Record<string, Attribute> | undefined;
}

function attribute(name: string, value: Attribute): Uint8Array {
  // AttributeProto: name 1, f 2, i 3, s 4, t 5, ints 8, type 20 (FLOAT 1, INT 2, STRING 3, TENSOR 4, INTS 7).
  const head = bytesField(1, name);
  if (typeof value === 'number') return concat([head, intField(3, value), intField(20, 2)]);
  if (typeof value === 'string') return concat([head, bytesField(4, value), intField(20, 3)]);
  if (Array.isArray(value)) return concat([head, ...value.map((item) => intField(8, item)), intField(20, 7)]);
  if ('float' in value) return concat([head, floatField(2, value.float), intField(20, 1)]);
  return concat([head, bytesField(5, tensorProto('', value.tensor)), intField(20, 4)]);
}

/** TensorProto: dims 1, data_type 2, name 8, raw_data 9, external_data 13, data_location 14. */
function tensorProto(name: string, tensor: TensorValue, external?: { location: string; offset: number }): Uint8Array {
  const parts: Part[] = [...tensor.dims.map((dim) => intField(1, dim)), intField(2, DataType[tensor.type])];
  if (name !== '') parts.push(bytesField(8, name));
  if (external) {
    const entry = (key: string, value: string) => bytesField(13, concat([bytesField(1, key), bytesField(2, value)]));
    parts.push(
      entry('location', external.location),
      entry('offset', String(external.offset)),
      entry('length', String(tensor.raw.length)),
      intField(14, 1),
    );
  } else parts.push(bytesField(9, tensor.raw));
  return concat(parts);
}

/** ValueInfoProto { name 1, type 2: TypeProto { tensor_type 1: { elem_type 1, shape 2: { dim 1: { dim_value 1 | dim_param 2 } } } } }. */
function valueInfo(name: string, type: ElementType, dims: readonly Dim[]): Uint8Array {
  const shape = concat(
    dims.map((dim) => bytesField(1, typeof dim === 'number' ? new Uint8Array(intField(1, dim)) : bytesField(2, dim))),
  );
  const tensorType = concat([intField(1, DataType[type]), bytesField(2, shape)]);
  return concat([bytesField(1, name), bytesField(2, bytesField(1, tensorType))]);
}

export interface GraphIo {
  name: string;
  type: ElementType;
  dims: readonly Dim[];
}

export interface ModelFiles {
  /** The ModelProto. */
  model: Uint8Array;
  /** The external weights, when `externalData` named a file for them. */
  externalData: Uint8Array | null;
}

/** Initializers at least this large go to the external data file (small ones stay inline, as exporters do). */
const EXTERNAL_THRESHOLD_BYTES = 1024;

/**
 * Collects nodes and initializers; `tensor` names come out unique. `write` lays out the ModelProto (IR 8,
 * opset 17), with initializers inline or in `externalData` (data_location EXTERNAL, offset and length).
 */
export class GraphBuilder {
  private readonly nodes: NodeSpec[] = [];
  private readonly initializers: { name: string; tensor: TensorValue }[] = [];
  private counter = 0;

  /** A fresh intermediate name. */
  name(hint: string): string {
    return `/${hint}_${this.counter++}`;
  }

  node(op: string, inputs: readonly string[], attributes?: Record<string, Attribute>, hint = op): string {
    const output = this.name(hint);
    this.nodes.push({ op, inputs, outputs: [output], attributes });
    return output;
  }

  /** A node whose outputs are named by the caller (graph outputs) or several. */
  nodeTo(
    op: string,
    inputs: readonly string[],
    outputs: readonly string[],
    attributes?: Record<string, Attribute>,
  ): void {
    this.nodes.push({ op, inputs, outputs, attributes });
  }

  initializer(name: string, tensor: TensorValue): string {
    this.initializers.push({ name, tensor });
    return name;
  }

  /** An int64 constant (a shape, axes, a scalar when `dims` is []). */
  int64(values: readonly number[], dims: readonly number[] = [values.length]): string {
    const raw = new Uint8Array(values.length * 8);
    const view = new DataView(raw.buffer);
    values.forEach((value, i) => view.setBigInt64(i * 8, BigInt(value), true));
    return this.initializer(this.name('const_i64'), { type: 'int64', dims, raw });
  }

  float(values: readonly number[], dims: readonly number[] = [values.length]): string {
    return this.initializer(this.name('const_f32'), {
      type: 'float',
      dims,
      raw: float32Raw(Float32Array.from(values)),
    });
  }

  write(options: {
    inputs: readonly GraphIo[];
    outputs: readonly GraphIo[];
    producer: string;
    /** The file name external weights are written to, relative to the model (onnx/model.onnx_data). */
    externalData?: string | undefined;
  }): ModelFiles {
    const external: Uint8Array[] = [];
    let offset = 0;
    const initializers = this.initializers.map(({ name, tensor }) => {
      if (options.externalData === undefined || tensor.raw.length < EXTERNAL_THRESHOLD_BYTES)
        return tensorProto(name, tensor);
      // onnxruntime reads external tensors at their offset; 64-byte alignment keeps memory mapping possible.
      const padding = (64 - (offset % 64)) % 64;
      if (padding > 0) external.push(new Uint8Array(padding));
      offset += padding;
      const proto = tensorProto(name, tensor, { location: options.externalData, offset });
      external.push(tensor.raw);
      offset += tensor.raw.length;
      return proto;
    });
    const nodes = this.nodes.map((node, i) =>
      concat([
        ...node.inputs.map((input) => bytesField(1, input)),
        ...node.outputs.map((output) => bytesField(2, output)),
        bytesField(3, `${node.op}_${i}`),
        bytesField(4, node.op),
        ...Object.entries(node.attributes ?? {}).map(([key, value]) => bytesField(5, attribute(key, value))),
      ]),
    );
    const graph = concat([
      ...nodes.map((node) => bytesField(1, node)),
      bytesField(2, 'main_graph'),
      ...initializers.map((initializer) => bytesField(5, initializer)),
      ...options.inputs.map((io) => bytesField(11, valueInfo(io.name, io.type, io.dims))),
      ...options.outputs.map((io) => bytesField(12, valueInfo(io.name, io.type, io.dims))),
    ]);
    // ModelProto: ir_version 1, producer_name 2, graph 7, opset_import 8 { domain 1, version 2 }.
    const model = concat([
      intField(1, 8),
      bytesField(2, options.producer),
      bytesField(7, graph),
      bytesField(8, new Uint8Array(intField(2, 17))),
    ]);
    return { model, externalData: options.externalData === undefined ? null : concat(external) };
  }
}

export function float32Raw(values: Float32Array): Uint8Array {
  return new Uint8Array(values.buffer.slice(values.byteOffset, values.byteOffset + values.byteLength));
}

/** IEEE half precision bits of each value (round to nearest even), little-endian. */
export function float16Raw(values: Float32Array): Uint8Array {
  const out = new Uint16Array(values.length);
  const view = new DataView(new ArrayBuffer(4));
  values.forEach((value, i) => {
    view.setFloat32(0, value);
    const bits = view.getUint32(0);
    const sign = (bits >>> 16) & 0x8000;
    const exponent = ((bits >>> 23) & 0xff) - 127 + 15;
    let mantissa = bits & 0x7fffff;
    if (exponent <= 0) {
      // Subnormal half (or zero): shift the implicit bit in.
      if (exponent < -10) out[i] = sign;
      else {
        mantissa |= 0x800000;
        const shift = 14 - exponent;
        let half = mantissa >> shift;
        const remainder = mantissa & ((1 << shift) - 1);
        const halfway = 1 << (shift - 1);
        if (remainder > halfway || (remainder === halfway && (half & 1) === 1)) half++;
        out[i] = sign | half;
      }
    } else if (exponent >= 31) out[i] = sign | 0x7c00;
    else {
      let half = (exponent << 10) | (mantissa >> 13);
      const remainder = mantissa & 0x1fff;
      if (remainder > 0x1000 || (remainder === 0x1000 && (half & 1) === 1)) half++;
      out[i] = sign | half;
    }
  });
  return new Uint8Array(out.buffer);
}

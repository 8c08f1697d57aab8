/**
 * TS ↔ WGSL records defined once: a field table generates the WGSL struct text (shaders compose it in,
 * src/gpu/shaders.ts) and encodes records into the bytes the kernels read, with WGSL's layout rules
 * (u32 and f32: 4-byte aligned; vec2<u32>: 8; a struct's size rounds up to its largest alignment).
 *
 * Why not TypeGPU: its `d.struct` schemas do generate both sides, but adopting it means its own shader
 * pipeline (tgpu.resolve, its buffer wrappers) for kernels whose every decision is held bit for bit to a
 * CPU twin; two small tables and this generator cover our three records without a new layer.
 */

export type FieldType = 'u32' | 'f32' | 'vec2<u32>';

export interface RecordField {
  readonly name: string;
  readonly type: FieldType;
  /** A one-line comment for the WGSL struct. */
  readonly doc?: string;
}

export interface RecordLayout<Name extends string> {
  readonly structName: string;
  readonly fields: readonly (RecordField & { readonly name: Name })[];
  /** Word offset of each field. */
  readonly offsets: Readonly<Record<Name, number>>;
  /** Words per record, padding included. */
  readonly words: number;
}

const ALIGN_WORDS: Record<FieldType, number> = { u32: 1, f32: 1, 'vec2<u32>': 2 };

export function recordLayout<Name extends string>(
  structName: string,
  fields: readonly (RecordField & { readonly name: Name })[],
): RecordLayout<Name> {
  const offsets = {} as Record<Name, number>;
  let at = 0;
  let align = 1;
  for (const field of fields) {
    const fieldAlign = ALIGN_WORDS[field.type];
    align = Math.max(align, fieldAlign);
    at = Math.ceil(at / fieldAlign) * fieldAlign;
    offsets[field.name] = at;
    at += fieldAlign;
  }
  return { structName, fields, offsets, words: Math.ceil(at / align) * align };
}

/** The WGSL struct of a layout. */
export function wgslStruct(layout: RecordLayout<string>): string {
  const lines = layout.fields.flatMap((field) => [
    ...(field.doc ? [`  /// ${field.doc}`] : []),
    `  ${field.name}: ${field.type},`,
  ]);
  return `struct ${layout.structName} {\n${lines.join('\n')}\n}\n`;
}

export type RecordValues<Name extends string> = Readonly<Record<Name, number | readonly [number, number]>>;

/** Encodes records into one buffer, field by field; f32 fields are written as floats, the rest as u32. */
export function encodeRecords<Name extends string>(
  layout: RecordLayout<Name>,
  records: readonly RecordValues<Name>[],
): ArrayBuffer {
  const bytes = new ArrayBuffer(records.length * layout.words * 4);
  const words = new Uint32Array(bytes);
  const floats = new Float32Array(bytes);
  records.forEach((record, index) => {
    const base = index * layout.words;
    for (const field of layout.fields) {
      const value = record[field.name];
      const at = base + layout.offsets[field.name];
      if (field.type === 'vec2<u32>') words.set(value as readonly [number, number], at);
      else if (field.type === 'f32') floats[at] = value as number;
      else words[at] = value as number;
    }
  });
  return bytes;
}

import { BYTE_TO_CHAR } from '../../src/grammar/byteGuard';

/** GPT-2's byte-level alphabet; its one home is the grammar's byte guard. */
export { BYTE_TO_CHAR };

/** A UTF-8 string in byte-level characters. */
export function toByteLevel(text: string): string {
  return [...new TextEncoder().encode(text)].map((b) => BYTE_TO_CHAR[b]).join('');
}

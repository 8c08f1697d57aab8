/**
 * GPT-2's byte-level alphabet: every byte maps to one printable character (printable bytes to themselves,
 * the rest to U+0100 onwards), so BPE tokens are strings and a leading space shows as Ġ.
 */
export const BYTE_TO_CHAR: readonly string[] = (() => {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  const map: string[] = [];
  let next = 256;
  for (let b = 0; b < 256; b++) map[b] = String.fromCharCode(printable(b) ? b : next++);
  return map;
})();

/** A UTF-8 string in byte-level characters. */
export function toByteLevel(text: string): string {
  return [...new TextEncoder().encode(text)].map((b) => BYTE_TO_CHAR[b]).join('');
}

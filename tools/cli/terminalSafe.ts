/**
 * Untrusted text (a scrape line, a schema, model output) made safe to print: control characters and escape
 * sequences are shown as \xNN / \u{NNNN} rather than sent to the terminal (newlines and tabs too unless
 * `keepLines`), and each line is cut at `maxChars`.
 */
import { CLI_LIMITS } from '../../src/contract/limits';

export function terminalSafe(
  text: string,
  { maxChars = CLI_LIMITS.echoChars, keepLines = false }: { maxChars?: number; keepLines?: boolean } = {},
): string {
  const escaped = (line: string) =>
    // eslint-disable-next-line no-control-regex
    line.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu, (char) => {
      if (keepLines && char === '\t') return char;
      const code = char.codePointAt(0) ?? 0;
      return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
    });
  const cut = (line: string) =>
    line.length > maxChars
      ? `${escaped(line.slice(0, maxChars))}… (${line.length - maxChars} more characters)`
      : escaped(line);
  return keepLines ? text.split('\n').map(cut).join('\n') : cut(text.replaceAll('\n', '\\n'));
}

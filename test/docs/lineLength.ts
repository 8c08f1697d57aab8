/**
 * The longest a code line may be (Prettier wraps at 120; it cannot break a comment or a string), and which
 * lines may pass it: a line that is one string, template or regular-expression literal (after `return`, a
 * declaration, a key, `? `/`: ` or an opening call, and before closing punctuation or a test's callback), or
 * one that holds a URL.
 */
export const MAX_LINE = 160;

const OPENING =
  /^(?:return |throw |(?:export )?(?:const|let) [\w$]+(?:: [\w$]+)? = |[?:] |[\w$.]+: |['"][\w$.:-]+['"]: |[\w$-]+=\{|\.\.\.|[\w$.]+\(|new [\w$.]+\(|\()*/;
/** Closing punctuation, or a test's callback after its name: `it('…', async () => {`. */
const CLOSING = /(?:, (?:async )?\((?:[\w$, ]*\) => \{|\{))?[,;)}\]]*$/;

/** Whether a line over MAX_LINE is one literal or a URL, which may stay as long as it is. */
export function mayBeLong(line: string): boolean {
  if (/\bhttps?:\/\/\S{20,}/.test(line)) return true;
  const core = line.trim().replace(OPENING, '').replace(CLOSING, '');
  const quote = core[0];
  if (quote === '/') return /^\/[^/*].*\/[a-z]*$/.test(core);
  return (quote === "'" || quote === '"' || quote === '`') && core.length > 1 && core.endsWith(quote);
}

/** `path:line: N characters` for each line over MAX_LINE that is not one literal or a URL. */
export function longLines(path: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, index) =>
      line.length > MAX_LINE && !mayBeLong(line) ? [`${path}:${index + 1}: ${line.length} characters`] : [],
    );
}

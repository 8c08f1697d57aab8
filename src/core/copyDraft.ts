/**
 * The copy drafter (drafters copy, model+copy, model+grammar+copy): structured output mostly repeats the
 * prompt's words ("Maria Lopez", "A-17", 31.50), but a value inside JSON is tokenized differently from the same
 * words in running text (` Maria` after a space, `Maria` after a quote), so matching token ids, as prompt
 * lookup does, misses them. Copying matches *text*: inside a string or number the JSON is writing, the value's
 * text so far is searched for in the prompt (and the output before the value), and the rest of the matched
 * value, re-tokenized in the current context by the run's own tokenizer, is proposed with q = 1.
 *
 * Every function here is pure: the proposal after a prefix depends on the prompt and that prefix alone, so
 * every draft that reaches a prefix proposes the same span, and K drafts stay i.i.d. draws of one law
 * (src/core/draftLaw.ts). Where several places in the prompt match, the rule picks one by position alone.
 */

/** Where the JSON being written stands at its end: inside a value the copy drafter may continue, or elsewhere. */
export type ValueCursor =
  | {
      /** Inside a string value (not a key): its text so far (raw JSON, escapes as written). */
      kind: 'string';
      text: string;
      /** Where the value's text starts in the JSON text (just after its opening quote). */
      start: number;
      /** The object key the value belongs to, or null in an array. */
      key: string | null;
    }
  | { kind: 'number'; text: string; start: number; key: string | null }
  /** After a key's colon (or in an array), before any character of the value. */
  | { kind: 'before-value'; text: ''; start: number; key: string | null };

/** The longest value the copy drafter proposes, in characters: a copied value is a name or a code, not a page. */
export const COPY_MAX_CHARS = 64;

/**
 * Reads one line of JSON as far as it goes (the output is always a prefix of valid JSON) and says where its end
 * stands. Null where nothing can be copied: inside a key, between members, after the value closed.
 */
export function valueCursor(json: string): ValueCursor | null {
  /** Per open container: an object expecting a key or a value (with its current key), or an array. */
  const stack: { kind: 'object' | 'array'; expecting: 'key' | 'value'; key: string | null }[] = [];
  let string: { start: number; isKey: boolean } | null = null;
  let number: number | null = null;
  let valueAt: number | null = null;
  let escaped = false;
  for (let i = 0; i < json.length; i++) {
    const char = json[i] as string;
    const top = stack.at(-1);
    if (string) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') {
        if (string.isKey && top) top.key = JSON.parse(json.slice(string.start - 1, i + 1)) as string;
        string = null;
      }
      continue;
    }
    if (number !== null) {
      if (/[0-9.eE+-]/.test(char)) continue;
      number = null;
    }
    if (/\s/.test(char)) continue;
    valueAt = null;
    if (char === '{' || char === '[') {
      stack.push({ kind: char === '{' ? 'object' : 'array', expecting: char === '{' ? 'key' : 'value', key: null });
      if (char === '[') valueAt = i + 1;
    } else if (char === '}' || char === ']') stack.pop();
    else if (char === ':') {
      if (top) top.expecting = 'value';
      valueAt = i + 1;
    } else if (char === ',') {
      if (top?.kind === 'object') top.expecting = 'key';
      else valueAt = i + 1;
    } else if (char === '"') string = { start: i + 1, isKey: top?.kind === 'object' && top.expecting === 'key' };
    else if (/[-0-9]/.test(char)) number = i;
  }
  const key = stack.at(-1)?.kind === 'object' ? (stack.at(-1)?.key ?? null) : null;
  if (string) return string.isKey ? null : { kind: 'string', text: json.slice(string.start), start: string.start, key };
  if (number !== null) return { kind: 'number', text: json.slice(number), start: number, key };
  if (valueAt !== null) return { kind: 'before-value', text: '', start: json.length, key };
  return null;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;
const NUMBER_START = /^-?[0-9]/;
/** A mark that joins two word characters into one token: "A-17", "2026-03-14", "31.50", "10:30", "1,000". */
const JOINER = /[-./:,]/;

/**
 * English function words (prepositions, conjunctions, relative words, auxiliary verbs), in lower case: where
 * running text goes on past a name or a phrase ("robotics meetup on 2026-03-14 drew …"), it mostly goes on
 * with one of these, so whether a copied value stops there is the target's choice, not the text's.
 */
const FUNCTION_WORDS = new Set(
  (
    'about above across after against along among around at before behind below beneath beside between beyond by ' +
    'despite during except for from in inside into near of off on onto over since through throughout till to ' +
    'toward towards under until upon via with within without ' +
    'and or but nor yet because although though while whereas if unless than ' +
    'that which who whom whose where when ' +
    'am is are was were be been being has have had do does did will would can could shall should may might must'
  ).split(' '),
);
/**
 * Where a string value copied from running text ends, for a value that starts at `start` and is proposed from
 * `from` on: a comma, a colon, a semicolon, a quote, a bracket, a line's or a sentence's end; a space where its
 * first word holds a digit (a code or a date is one word: "X-100 cables", "2026-03-14 drew"); and before a
 * function word from `from` on, where the value may as well end as go on (the target, not the text, decides:
 * once it writes the word, the next proposal continues past it).
 */
function stringValueEnd(source: string, start: number, from: number = start): number {
  const oneWord = /\d/.test(/^\S*/.exec(source.slice(start))?.[0] ?? '');
  let end = start;
  while (end < source.length && end - start < COPY_MAX_CHARS) {
    const char = source[end] as string;
    if (/[,;:"\n()[\]{}]/.test(char) || (oneWord && /\s/.test(char))) break;
    if (char === '.' && !/[\p{L}\p{N}]/u.test(source[end + 1] ?? '')) break;
    end++;
  }
  // Whole lower-case words: a capitalized one ("May", "On Air") is more likely part of a name.
  const words = /(?<![\p{L}\p{N}])\p{Ll}+(?![\p{L}\p{N}])/gu;
  words.lastIndex = from;
  for (let word = words.exec(source); word && word.index < end; word = words.exec(source)) {
    if (FUNCTION_WORDS.has(word[0])) {
      end = word.index;
      break;
    }
  }
  // Trailing spaces are the text's, not the value's.
  while (end > start && source[end - 1] === ' ') end--;
  return end;
}

/**
 * Where a number copied from running text ends: digits, one decimal point between digits, an exponent; a
 * fraction's trailing zeros are left to the target ("31.50" is proposed as 31.5: JSON writers drop them, so
 * whether the target writes them is its choice, not the text's).
 */
function numberValueEnd(source: string, from: number): number {
  const match = /^-?[0-9]+(\.[0-9]*[1-9])?([eE][+-]?[0-9]+)?/.exec(source.slice(from, from + COPY_MAX_CHARS));
  return from + (match ? match[0].length : 0);
}

/**
 * Whether a match at `at` starts a token of `source`: not inside a word ("ria" in "Maria") nor after a mark
 * that joins it to one ("17" in "A-17", "14" in "2026-03-14", "50" in "31.50"): those are parts of another value.
 */
function startsToken(source: string, at: number): boolean {
  const before = source[at - 1] ?? ' ';
  return !WORD_CHAR.test(before) && !(JOINER.test(before) && WORD_CHAR.test(source[at - 2] ?? ' '));
}

/** The rest of the value whose text so far is `cursor.text`, from its first match in `source` at a token's start. */
function continueMatch(source: string, cursor: ValueCursor): string | null {
  const { text, kind } = cursor;
  for (let at = source.indexOf(text); at !== -1; at = source.indexOf(text, at + 1)) {
    if (!startsToken(source, at)) continue;
    const from = at + text.length;
    if (kind === 'number' && !NUMBER_START.test(source.slice(at))) continue;
    const end = kind === 'number' ? numberValueEnd(source, at) : stringValueEnd(source, at, from);
    if (end > from) return source.slice(from, end);
  }
  return null;
}

/** "order_id" → ["order id", "order"]: the key as words, then its first word. */
function keyPhrases(key: string): string[] {
  const words = key
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 1)
    .map((word) => word.toLowerCase());
  if (words.length === 0) return [];
  return words.length > 1 ? [words.join(' '), words[0] as string] : [words[0] as string];
}

/**
 * At a value's first character: the value the key's name points to in the prompt ("Order A-17" for
 * `order_id`), only where that name occurs exactly once there, as a whole word; the key's words, then its first
 * word. A string value is the text up to its end; before the value opens, only a number is proposed (the schema
 * decides whether a quote comes first).
 */
function valueForKey(prompt: string, cursor: ValueCursor): string | null {
  if (cursor.key === null) return null;
  const lower = prompt.toLowerCase();
  for (const phrase of keyPhrases(cursor.key)) {
    const found: number[] = [];
    for (let at = lower.indexOf(phrase); at !== -1; at = lower.indexOf(phrase, at + 1)) {
      const before = at > 0 ? (lower[at - 1] as string) : ' ';
      const after = lower[at + phrase.length] ?? ' ';
      if (!WORD_CHAR.test(before) && !WORD_CHAR.test(after)) found.push(at);
    }
    if (found.length !== 1) continue;
    const separator = /^\s*(?:[:=]|\bis\b)?\s*/.exec(
      prompt.slice((found[0] as number) + phrase.length),
    ) as RegExpExecArray;
    const from = (found[0] as number) + phrase.length + separator[0].length;
    const end = cursor.kind === 'string' ? stringValueEnd(prompt, from) : numberValueEnd(prompt, from);
    if (end > from) return prompt.slice(from, end);
  }
  return null;
}

/**
 * The text the copy drafter proposes after `json` (the constrained output so far), or null. `prompt` is the
 * prompt's text; the output before the current value is searched too (a value the JSON already repeated).
 * Within a value: the first place, in the prompt then the earlier output, where the value's text so far starts
 * a token, continued to that value's end or to where the target's choice is its own (a function word, a
 * fraction's trailing zeros). At a value's first character: the value the key's name points to.
 * Before a number value opens, the JSON's ": " layout supplies the space the tokenizer attaches to it.
 */
export function copyText(prompt: string, json: string): { text: string; valueChars: number } | null {
  const cursor = valueCursor(json);
  if (!cursor) return null;
  if (cursor.text === '') {
    const value = valueForKey(prompt, cursor);
    if (value === null || (cursor.kind === 'before-value' && !NUMBER_START.test(value))) return null;
    return { text: cursor.kind === 'before-value' && json.endsWith(':') ? ` ${value}` : value, valueChars: 0 };
  }
  // The value's text so far must be found whole: escapes would not match running text.
  if (cursor.kind === 'string' && cursor.text.includes('\\')) return null;
  const rest = continueMatch(`${prompt}\n${json.slice(0, cursor.start)}`, cursor);
  if (rest === null) return null;
  // A string value never holds a raw quote or backslash; a copy that would need escaping is not proposed.
  if (cursor.kind === 'string' && /["\\\p{Cc}]/u.test(rest)) return null;
  return { text: rest, valueChars: cursor.text.length };
}

/** The copy drafter's span after `output` (whose JSON part is `json`): the copied text's tokens in place, or none. */
export function copySpan(
  prompt: string,
  output: readonly number[],
  json: string,
  tokenize: (text: string) => number[],
  detokenize: (tokens: readonly number[]) => string,
): number[] {
  const copied = copyText(prompt, json);
  return copied ? copyTokens(output, copied.valueChars, copied.text, tokenize, detokenize) : [];
}

/**
 * The copy's tokens in the current context: the output's last tokens back to where the value starts (at most
 * `tail` of them) are re-tokenized together with the copied text, and where the tokenizer splits them as the
 * output already did, the rest is the proposal: the tokens the target itself would write. Where it would split
 * them otherwise, the copied text is tokenized alone.
 */
export function copyTokens(
  output: readonly number[],
  valueChars: number,
  text: string,
  tokenize: (text: string) => number[],
  detokenize: (tokens: readonly number[]) => string,
): number[] {
  let from = output.length;
  let tailText = '';
  while (from > 0 && tailText.length < valueChars) {
    from--;
    tailText = detokenize(output.slice(from));
  }
  const tail = output.slice(from);
  const together = tokenize(tailText + text);
  if (tail.every((token, i) => together[i] === token) && together.length > tail.length)
    return together.slice(tail.length);
  return tokenize(text);
}

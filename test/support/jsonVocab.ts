import type { LogitPair } from '../../src/core/modelPair';

/** A raw vocabulary that can spell one-line JSON for every preset, some free text, and a stop token. */
export const JSON_VOCAB: string[] = [
  '{',
  '}',
  '[',
  ']',
  '"',
  ':',
  ',',
  ' ',
  '.',
  '-',
  '_',
  '\n',
  ...'abcdefghijklmnopqrstuvwxyz'.split(''),
  ...'0123456789'.split(''),
  'true',
  'false',
  'null',
  'positive',
  'negative',
  'neutral',
  'sentiment',
  'Answer: ',
  'Think',
  ' more',
  '</s>',
];
export const JSON_STOP = JSON_VOCAB.length - 1;
export const TRIGGER_TOKEN = JSON_VOCAB.indexOf('Answer: ');

export const decodeJson = (tokens: readonly number[]) => tokens.map((t) => JSON_VOCAB[t] ?? '').join('');

/** The raw vocabulary's canonical tokenization: longest match first. */
export function tokenizeJson(text: string): number[] {
  const ids: number[] = [];
  for (let at = 0; at < text.length;) {
    let best = -1;
    JSON_VOCAB.forEach((token, id) => {
      if (
        id !== JSON_STOP &&
        token.length > 0 &&
        text.startsWith(token, at) &&
        (best === -1 || token.length > (JSON_VOCAB[best] as string).length)
      )
        best = id;
    });
    if (best === -1) throw new Error(`no token spells ${JSON.stringify(text.slice(at))}`);
    ids.push(best);
    at += (JSON_VOCAB[best] as string).length;
  }
  return ids;
}

/** Steers free text: after `freeTokens` tokens, the trigger (and nothing else in free text) is likely. */
export function withTriggerAfter(logits: LogitPair, freeTokens: number): LogitPair {
  const steer = (row: Float64Array, prefix: readonly number[]) => {
    if (prefix.includes(TRIGGER_TOKEN)) return row;
    const steered = row.slice();
    steered[JSON_STOP] = -Infinity;
    if (prefix.length >= freeTokens) steered[TRIGGER_TOKEN] = 50;
    return steered;
  };
  return {
    V: logits.V,
    target: (prefix) => steer(logits.target(prefix), prefix),
    draft: (prefix) => steer(logits.draft(prefix), prefix),
  };
}

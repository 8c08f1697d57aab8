import type { LogitPair } from '../../src/core/modelPair';

/** A raw vocabulary that can spell one-line JSON for every preset, some free text, and a stop token. */
export const JSON_VOCAB: string[] = [
  '{', '}', '[', ']', '"', ':', ',', ' ', '.', '-', '_', '\n',
  ...'abcdefghijklmnopqrstuvwxyz'.split(''),
  ...'0123456789'.split(''),
  'true', 'false', 'null', 'positive', 'negative', 'neutral', 'sentiment', 'Answer: ', 'Think', ' more', '</s>',
];
export const JSON_STOP = JSON_VOCAB.length - 1;
export const TRIGGER_TOKEN = JSON_VOCAB.indexOf('Answer: ');

export const decodeJson = (tokens: readonly number[]) => tokens.map((t) => JSON_VOCAB[t] ?? '').join('');

/** Steers free text: after `freeTokens` tokens, the trigger (and nothing else in free text) is likely. */
export function withTriggerAfter(logits: LogitPair, freeTokens: number): LogitPair {
  const steer = (row: Float64Array, prefix: readonly number[]) => {
    if (prefix.includes(TRIGGER_TOKEN)) return row;
    const steered = row.slice();
    steered[JSON_STOP] = -Infinity;
    if (prefix.length >= freeTokens) steered[TRIGGER_TOKEN] = 50;
    return steered;
  };
  return { V: logits.V, target: (prefix) => steer(logits.target(prefix), prefix), draft: (prefix) => steer(logits.draft(prefix), prefix) };
}

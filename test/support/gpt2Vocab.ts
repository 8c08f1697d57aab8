import gpt2 from 'js-tiktoken/ranks/gpt2';
import { BYTE_TO_CHAR } from '../../tools/train/byteLevel';

/** GPT-2's 50,257-token vocabulary as byte-level strings (Ġ for a leading space), shipped by js-tiktoken. */
export function gpt2Vocabulary(): { tokens: string[]; stopTokenIds: number[] } {
  const tokens: string[] = [];
  for (const line of gpt2.bpe_ranks.split('\n')) {
    const [marker, offset, ...pieces] = line.split(' ');
    if (marker !== '!') continue;
    pieces.forEach((piece, i) => {
      const bytes = Buffer.from(piece, 'base64');
      tokens[Number(offset) + i] = [...bytes].map((b) => BYTE_TO_CHAR[b]).join('');
    });
  }
  for (const [text, id] of Object.entries(gpt2.special_tokens)) tokens[id] = text;
  return { tokens, stopTokenIds: [gpt2.special_tokens['<|endoftext|>'] as number] };
}

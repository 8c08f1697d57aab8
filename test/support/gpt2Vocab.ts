import gpt2 from 'js-tiktoken/ranks/gpt2';

/** GPT-2's byte → printable-character map (byte-level BPE): printable bytes map to themselves, the rest to 256+. */
function byteToChar(): string[] {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  const map: string[] = [];
  let next = 256;
  for (let b = 0; b < 256; b++) map[b] = String.fromCharCode(printable(b) ? b : next++);
  return map;
}

/** GPT-2's 50,257-token vocabulary as byte-level strings (Ġ for a leading space), shipped by js-tiktoken. */
export function gpt2Vocabulary(): { tokens: string[]; stopTokenIds: number[] } {
  const chars = byteToChar();
  const tokens: string[] = [];
  for (const line of gpt2.bpe_ranks.split('\n')) {
    const [marker, offset, ...pieces] = line.split(' ');
    if (marker !== '!') continue;
    pieces.forEach((piece, i) => {
      const bytes = Buffer.from(piece, 'base64');
      tokens[Number(offset) + i] = [...bytes].map((b) => chars[b]).join('');
    });
  }
  for (const [text, id] of Object.entries(gpt2.special_tokens)) tokens[id] = text;
  return { tokens, stopTokenIds: [gpt2.special_tokens['<|endoftext|>'] as number] };
}

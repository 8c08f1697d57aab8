import { isTokenAllowed } from '../../src/core/sampling';
import { checkDrafts } from '../../src/grammar/draftMasks';
import { GrammarEngine } from '../../src/grammar/engine';
import { SMALL_VOCAB, STOP } from '../support/smallVocab';

export interface BrowserGrammarReport {
  allowedAtStart: string[];
  validLengths: number[];
  rejection: string;
}

async function run(): Promise<BrowserGrammarReport> {
  const engine = await GrammarEngine.create({ tokens: SMALL_VOCAB, vocabType: 'raw', stopTokenIds: [STOP] });
  const compiled = await engine.compile('{"enum": ["positive", "negative", "neutral"]}');
  const matcher = await compiled.matcher();
  const start = await matcher.mask();
  const ids = (...pieces: string[]) => pieces.map((piece) => SMALL_VOCAB.indexOf(piece));
  const { validLengths } = await checkDrafts(
    matcher,
    Int32Array.from([...ids('"', 'neg', 'x')]),
    1,
    3,
    SMALL_VOCAB.length,
  );
  const rejection = await engine.compile('{"$ref": "#/$defs/missing"}').then(
    () => 'compiled',
    (error: unknown) => String(error),
  );
  matcher.dispose();
  compiled.dispose();
  engine.dispose();
  return { allowedAtStart: SMALL_VOCAB.filter((_, t) => isTokenAllowed(start, t)), validLengths, rejection };
}

declare global {
  interface Window {
    speclabGrammar: Promise<BrowserGrammarReport | { error: string }>;
  }
}

window.speclabGrammar = run().catch((error: unknown) => ({ error: String(error) }));

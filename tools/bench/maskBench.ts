/**
 * Per-position mask cost inside our loop (checkDrafts over a draft window, then advanceOverEmitted) against a bare xgrammar loop (mask, accept) over the same tokens. Loaded through Vite by
 * tools/cli/benchMask.ts, so that xgrammar's UMD bundle is transformed as it is for the app.
 */
import { maskWordCount } from '../../src/core/sampling';
import { advanceOverEmitted, checkDrafts } from '../../src/grammar/draftMasks';
import { GrammarEngine, type GrammarVocabulary } from '../../src/grammar/engine';
import { SCHEMA_PRESETS } from '../../src/contract/presets';

/** One valid output per preset, in the grammar's one-line layout. */
export const SAMPLE_OUTPUTS: Record<string, string> = {
  sentiment: '{"sentiment": "positive", "reason": "lasts two full days"}',
  person: '{"name": "maria lopez", "age": 34, "member": true}',
  order:
    '{"order_id": "a-17", "items": [{"sku": "x-100", "quantity": 2}, {"sku": "h-20", "quantity": 1}], "total": 31.5}',
  event: '{"title": "robotics meetup", "date": "2026-03-14", "attendees": 120, "rating": 4.5}',
  reasoning: '{"answer": 36, "confident": true}',
};

export interface MaskBenchRow {
  vocabulary: string;
  preset: string;
  positions: number;
  bareP50: number;
  bareP95: number;
  loopP50: number;
  loopP95: number;
  /** loop p50 / bare p50: the goal is at most 1.1. */
  ratio: number;
  maskBytesPerStep: number;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

export async function runMaskBench(
  vocabularies: { name: string; vocabulary: GrammarVocabulary; encode: (text: string) => number[] }[],
  L: number,
  repeats: number,
): Promise<MaskBenchRow[]> {
  const rows: MaskBenchRow[] = [];
  for (const { name, vocabulary, encode } of vocabularies) {
    const engine = await GrammarEngine.create(vocabulary);
    const V = vocabulary.tokens.length;
    for (const preset of SCHEMA_PRESETS) {
      const tokens = encode(SAMPLE_OUTPUTS[preset.id] as string);
      const compiled = await engine.compile(JSON.stringify(preset.schema));
      const bare: number[] = [];
      const loop: number[] = [];
      for (let r = 0; r < repeats; r++) {
        const matcher = await compiled.matcher();
        for (const token of tokens) {
          const t0 = performance.now();
          await matcher.mask();
          if (!matcher.accept(token))
            throw new Error(`${name}/${preset.id}: the sample output is not valid at token ${token}`);
          bare.push(performance.now() - t0);
        }
        matcher.dispose();
        // Each step drafts the true continuation, so all L drafts are accepted and the bonus token follows:
        // a step emits L + 1 tokens, as a fully accepted step does in the loop.
        const ours = await compiled.matcher();
        for (let at = 0; at < tokens.length; at += L + 1) {
          const window = Int32Array.from(
            { length: L },
            (_, j) => tokens[Math.min(at + j, tokens.length - 1)] as number,
          );
          const emitted = tokens.slice(at, at + L + 1);
          const t0 = performance.now();
          const check = await checkDrafts(ours, window, 1, L, V);
          advanceOverEmitted(ours, check, [0], { draft: 0, tokens: emitted });
          const perPosition = (performance.now() - t0) / emitted.length;
          for (let j = 0; j < emitted.length; j++) loop.push(perPosition);
        }
        ours.dispose();
      }
      compiled.dispose();
      const bareP50 = percentile(bare, 0.5);
      const loopP50 = percentile(loop, 0.5);
      rows.push({
        vocabulary: name,
        preset: preset.id,
        positions: tokens.length,
        bareP50,
        bareP95: percentile(bare, 0.95),
        loopP50,
        loopP95: percentile(loop, 0.95),
        ratio: loopP50 / bareP50,
        maskBytesPerStep: (L + 1) * maskWordCount(V) * 4,
      });
    }
    engine.dispose();
  }
  return rows;
}

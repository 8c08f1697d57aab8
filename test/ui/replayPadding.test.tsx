/**
 * A draft that ends before L: the verifier reads it padded to L with its stop token (q = 1), so a block test can
 * fall past the draft's last cell. On the person preset's lecture step (recorded from the bundled pair:
 * test/fixtures/steps/person-lecture-step-2.json; test/engine/bundledPipeline.test.ts holds it to the engine's
 * run), draft 3 ends at <|endoftext|> after 3 tokens while its block runs from position 2 to 4. The record is
 * right (that test was drawn, and replaying the draws needs it); the display names it as padding and points
 * every line, cell and table row at a token that exists.
 */
import { readFileSync } from 'node:fs';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { choiceSummary, explainStep } from '../../src/core/explain';
import type { StepRecord } from '../../src/contract/stepRecord';
import { BlockTrace, DecisionGrid } from '../../src/ui/DecisionLines';
import { playbackFrames, viewAt } from '../../src/ui/playback';

/** JSON writes NaN (a value the rule did not need) as null; the worker hands the UI NaN. */
const step = JSON.parse(readFileSync('test/fixtures/steps/person-lecture-step-2.json', 'utf8'), (_key, value) =>
  value === null ? NaN : value,
) as StepRecord;
const text = (token: number) => (token === 1024 ? '<|endoftext|>' : `t${token}`);
const shape = { drafts: step.drafts, validLengths: step.validLengths, sources: step.draftSources };
const explained = explainStep(step.decisions ?? [], shape, text);
const exists = (cell: { draft: number; position: number }) => step.drafts[cell.draft]?.[cell.position] !== undefined;

describe('a recorded step whose draft ends before L', () => {
  it('is the case: draft 3 stops at <|endoftext|> after 3 tokens, and its block is tested at position 4', () => {
    expect(step.drafts.map((draft) => draft.length)).toEqual([4, 4, 3]);
    expect(step.drafts[2]?.at(-1)).toBe(1024);
    const padded = (step.decisions ?? []).filter(
      ({ note }) => note?.kind === 'block-test' && note.draft === 2 && note.start + note.i - 1 >= 3,
    );
    expect(padded).toHaveLength(1);
  });

  it('points every decision line at an existing cell, and names the padding test as padding', () => {
    const tested = explained.lines.filter((line) => line.cell !== null);
    expect(tested.length).toBeGreaterThan(0);
    for (const line of tested) expect(exists(line.cell ?? { draft: -1, position: -1 }), line.where ?? '').toBe(true);
    const padding = explained.lines.filter((line) => line.where?.includes('padding'));
    expect(padding.map((line) => ({ cell: line.cell, where: line.where }))).toEqual([
      {
        cell: { draft: 2, position: 2 },
        where:
          'draft 3, position 4 (padding: the draft ended at position 3 with “<|endoftext|>”, so nothing was drafted here)',
      },
    ]);
  });

  it('marks an existing grid cell current on every replay frame that tests one', () => {
    const frames = playbackFrames(step, explained, text);
    const testing = frames.filter((frame) => frame.phase === 'verification' && viewAt(frame, explained).cell);
    expect(testing.length).toBeGreaterThan(0);
    for (const frame of testing) {
      const view = viewAt(frame, explained);
      const markup = renderToStaticMarkup(<DecisionGrid step={step} explained={explained} text={text} view={view} />);
      const current = [...markup.matchAll(/class="cell [^"]*current"[^>]*data-cell="(\d+),(\d+)"/g)];
      expect(current, frame.caption).toHaveLength(1);
      expect(current[0]?.slice(1).map(Number)).toEqual([view.cell?.draft, view.cell?.position]);
    }
    expect(frames.filter((frame) => /position 4 \(padding/.test(frame.caption))).toHaveLength(2);
  });

  it('names the draft that tested the accepted token in the heading and the emission caption', () => {
    expect(choiceSummary(explained.cells, step.chosen, step.accepted)).toBe(
      '1 token accepted, tested in draft 2 (draft 3, which shares it, was chosen)',
    );
    expect(playbackFrames(step, explained, text).at(-1)?.caption).toMatch(
      /^Emission: 1 accepted token tested in draft 2 \(draft 3, which shares it, was chosen\), then the correction token/,
    );
  });

  it('gives each GBV table row the token it tested, and calls the padding row padding', () => {
    const trace = step.trace;
    if (!trace) throw new Error('the lecture step is a GBV block');
    const markup = renderToStaticMarkup(
      <BlockTrace trace={trace} chosen={step.chosen} draft={step.drafts[step.chosen] ?? []} text={text} />,
    );
    expect(markup).toContain(
      'draft 3 from position 2, n = 3 positions (2 drafted tokens, then 1 of padding: the draft ended at “&lt;|endoftext|&gt;”)',
    );
    const rows = [...markup.matchAll(/<tr data-padding="(true|false)"><td>(\d)<\/td><td>([^<]*)<\/td>/g)].map((row) =>
      row.slice(1),
    );
    expect(rows).toEqual([
      ['false', '0', 'before the block'],
      ['false', '1', 'position 2: “t363”'],
      ['false', '2', 'position 3: “&lt;|endoftext|&gt;”'],
      ['true', '3', 'position 4: padding'],
    ]);
  });
});

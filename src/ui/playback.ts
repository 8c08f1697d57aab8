/**
 * "Play this step": the frames of one recorded step, in the order the engine went through them. A frame
 * says how much of the step the grid and the tree show; nothing is recomputed, so a replay never changes
 * what was generated.
 */
import { acceptedFrom, type ExplainedStep } from '../core/explain';
import type { StepRecord } from '../contract/stepRecord';
import { FREE_SOURCES } from '../core/draftLaw';
import { FREE_SOURCE_WORDS, SOURCE_MARKS } from './howItWorksText';

export const PHASES = ['drafting', 'grammar', 'scoring', 'verification', 'emission'] as const;
export type Phase = (typeof PHASES)[number];

export interface Frame {
  phase: Phase;
  caption: string;
  /** Verification frames: the decision lines shown so far (index into explained.lines, inclusive). */
  line: number;
  /**
   * A question frame: the test of `line` is asked (u and its threshold) but its outcome is not yet shown. The
   * player adds KEY_PROMPT after its caption on screen; an exported video has no keys to press.
   */
  question?: boolean;
}

/** What the grid and the tree show at a frame; null shows everything (no playback). */
export interface PlaybackView {
  phase: Phase;
  /** Decisions (indices into the step's decisions) revealed so far, up to and including this one; -1 for none. */
  revealedDecision: number;
  /** The cell the current decision tested. */
  cell: { draft: number; position: number } | null;
}

/**
 * The question a decision line answers, asked before its outcome: "u = 0.412 < min(1, p/q) = 0.830 →
 * accepted" becomes "u = 0.412; threshold min(1, p/q) = 0.830: accept?". Null for a line that tests nothing.
 */
export function questionOf(line: string): string | null {
  // The final token: its u and its law are asked, the token it picks is the answer.
  const final = /^u = (\S+) → “.*” at (position \d+), drawn from (.+)$/s.exec(line);
  if (final) return `u = ${final[1]}: which token at ${final[2]}? (drawn from ${final[3]})`;
  const test = /^u = (\S+) [<≥] (.+?) = (\S+?) → /.exec(line);
  if (!test) return null;
  const [, u, threshold, value] = test;
  if (threshold?.startsWith('F('))
    return `u = ${u}: which candidate does the transport plan’s cumulative flow F pick, if any?`;
  return `u = ${u}; threshold ${threshold} = ${value}: ${threshold?.startsWith('h_') ? 'keep the block up to here?' : 'accept?'}`;
}

/** What a question frame adds on screen (not in an export). */
export const KEY_PROMPT = '(the next key press answers)';

const s = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** What a step whose every drafted token the schema forced says instead of quizzing its tests. */
export const ALL_FORCED = 'All forced by the schema: nothing to verify';

/**
 * Whether the schema forced every token the step drafted (drafter model+grammar: q = 1, and p = 1 under the
 * mask): every test then passes but for rounding, and there is nothing to predict.
 */
export function allForced(step: StepRecord): boolean {
  return (
    step.drafts.length > 0 &&
    step.draftSources.every((sources, k) =>
      sources.slice(0, step.validLengths[k] ?? sources.length).every((source) => source === 'grammar'),
    )
  );
}

/** The target's forward, as the step's record says it ran. */
function scoringPass(scoring: StepRecord['scoring']): string {
  if (!scoring) return 'one forward';
  if (scoring.path === 'tree')
    return `one forward over the drafts’ prefix tree (${scoring.positions} positions, where K batched rows take ${scoring.batchedPositions})`;
  return `one batched forward (${scoring.positions} positions${scoring.reason ? `: ${scoring.reason}` : ''})`;
}

/** What drafted the step's tokens: only the draft model's tokens were sampled from q; ◆, ▣ and ↺ tokens were not. */
export function draftingCaption(step: Pick<StepRecord, 'drafts' | 'draftSources'>, L: number): string {
  const sources = step.draftSources.flat();
  const free = sources.filter((source) => source !== 'model').length;
  const head = `Drafting: ${s(step.drafts.length, 'draft')} of up to ${s(L, 'token')}`;
  if (free === 0) return `${head}, every token sampled by the small model from its distribution q.`;
  const model = sources.length - free;
  const marks = FREE_SOURCES.filter((source) => sources.includes(source)).map(
    (source) => `${SOURCE_MARKS[source].symbol} ${FREE_SOURCE_WORDS[source]}`,
  );
  return `${head}: ${model} token${model === 1 ? '' : 's'} sampled by the small model from its distribution q, ${free} drafted without it (${marks.join(', ')}; q = 1).`;
}

export function playbackFrames(step: StepRecord, explained: ExplainedStep, text: (token: number) => string): Frame[] {
  const proposed = step.drafts.reduce((n, draft) => n + draft.length, 0);
  const invalid = step.drafts.reduce(
    (n, draft, k) => n + Math.max(0, draft.length - (step.validLengths[k] ?? draft.length)),
    0,
  );
  const L = Math.max(0, ...step.drafts.map((draft) => draft.length));
  const last = step.emitted.at(-1);
  const frames: Frame[] = [
    { phase: 'drafting', line: -1, caption: draftingCaption(step, L) },
    {
      phase: 'grammar',
      line: -1,
      caption:
        invalid === 0
          ? `Grammar check: the schema allows all ${s(proposed, 'drafted token')}.`
          : `Grammar check: ${invalid} of ${s(proposed, 'drafted token')} are struck out — the first token the schema does not allow in a draft, and every token after it in that draft; the target’s p is 0 there.`,
    },
    {
      phase: 'scoring',
      line: -1,
      caption: `Target scoring: ${scoringPass(step.scoring)} of the large model gives p at every drafted position, plus the next position of each draft.`,
    },
  ];
  const forced = allForced(step);
  explained.lines.forEach((line, i) => {
    const where = `${forced ? `${ALL_FORCED} (q = p = 1 at every drafted position). ` : ''}${line.where ? `${line.where}: ` : ''}`;
    const question = forced ? null : questionOf(line.text);
    if (question)
      frames.push({
        phase: 'verification',
        line: i,
        question: true,
        caption: `Verification ${i + 1} of ${explained.lines.length} — ${where}${question}`,
      });
    frames.push({
      phase: 'verification',
      line: i,
      caption: `Verification ${i + 1} of ${explained.lines.length} — ${where}${line.text}`,
    });
  });
  const accepted = step.emitted.filter((token) => token.origin === 'draft').length;
  frames.push({
    phase: 'emission',
    line: explained.lines.length - 1,
    caption: last
      ? `Emission: ${s(accepted, 'accepted token')} ${acceptedFrom(explained.cells, step.chosen, accepted)}${last.origin === 'draft' ? '' : `, then the ${last.origin} token “${text(last.token)}”`} — ${s(step.emitted.length, 'token')} for one target forward.`
      : 'Emission: nothing was emitted.',
  });
  return frames;
}

export function viewAt(frame: Frame, explained: ExplainedStep): PlaybackView {
  const line = frame.line >= 0 ? explained.lines[frame.line] : undefined;
  // A question frame reveals the decisions before this one, not this one.
  const revealed = frame.question ? (frame.line > 0 ? explained.lines[frame.line - 1] : undefined) : line;
  return {
    phase: frame.phase,
    revealedDecision: revealed?.decision ?? -1,
    cell: frame.phase === 'verification' ? (line?.cell ?? null) : null,
  };
}

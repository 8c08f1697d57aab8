/**
 * The step inspector's reading of a decision trace (src/core/trace.ts): one line per decision that a student
 * can check by hand, what each decision did to the K×L cells, the final token's law, and the drafts merged
 * into a prefix tree. Everything here is derived from the verifier's own notes and draws, never re-computed.
 */
import type { DecisionNote, DecisionRecord, Draw, FinalLaw } from './decisions';
import { prefixTree } from './tokenTree';
import type { DraftSource } from './draftLaw';

/**
 * accepted / rejected by the verifier, never examined, or removed by the grammar before verification; or, in
 * block verification, not kept: past the block's first dropped position (the block stopped before it, and
 * the test that failed here is about the block's prefix, not this token), or a token the schema forced (q = p = 1),
 * which no test can reject.
 */
export type CellStatus = 'accepted' | 'rejected' | 'not-kept' | 'not-examined' | 'invalid';

export interface CellExplanation {
  status: CellStatus;
  /** Whether a uniform was drawn for this cell (or for the block it closed). */
  examined: boolean;
  line: string;
  /** The decision (index into the step's decisions) that settled this cell; null when none did. */
  decision: number | null;
  /** Accepted with a longer block by one block test (GBV), not by a test of its own. */
  keptByBlock?: true;
}

export interface DecisionLine {
  /** Index into the step's decisions. */
  decision: number;
  text: string;
  /**
   * The cell the decision tested, when it tested one. A test past a draft's end (a draft that stopped early is
   * padded to L with its stop token, q = 1, which the verifier reads like any token) points at the draft's last
   * cell, its stop token: the padding has no cell.
   */
  cell: { draft: number; position: number } | null;
  /** Where the test was, for the reader: "draft 3, position 2", or a padding position named as one; null when none. */
  where: string | null;
}

export interface StepShape {
  /** Each draft's tokens (a draft may be shorter than L when it reached the stop token). */
  drafts: readonly (readonly number[])[];
  /** How many of each draft's tokens the grammar allowed. */
  validLengths: readonly number[];
  /** Where each draft's tokens came from (src/core/draftLaw.ts); absent: the draft model. */
  sources?: readonly (readonly DraftSource[])[];
}

export interface ExplainedStep {
  cells: CellExplanation[][];
  lines: DecisionLine[];
  /** What the trace says was emitted: the draft, its accepted tokens, the final token and its law. */
  chosen: number | null;
  accepted: number | null;
  finalToken: number | null;
  finalLine: string | null;
}

/** Two numbers shown with enough digits that the comparison between them reads true. */
function pair(a: number, b: number): [string, string] {
  for (let digits = 3; digits < 10; digits++) {
    const [x, y] = [a.toFixed(digits), b.toFixed(digits)];
    if (x !== y || a === b) return [x, y];
  }
  return [a.toPrecision(12), b.toPrecision(12)];
}

/** Three decimals; a small positive value keeps two significant digits instead of reading as 0.000. */
const num = (value: number) => (value > 0 && value < 5e-4 ? value.toExponential(1) : value.toFixed(3));

/** "u = 0.412 < min(1, p/q) = 0.833": the uniform against its threshold, as the draw compared them. */
export function comparison(draw: Draw & { kind: 'bernoulli' }, threshold: string): string {
  const [u, p] = pair(draw.u, draw.p);
  return `u = ${u} ${draw.value ? '<' : '≥'} ${threshold} = ${p}`;
}

const FINAL_LAWS: Readonly<Record<FinalLaw, string>> = {
  bonus: 'bonus: the target’s next-token distribution after every draft token',
  residual: 'the residual normalise(max(0, p − q))',
  'block-residual': 'the block residual normalise(max(0, w_τ·p − q)) at the stopping position',
  'kseq-residual': 'the K-SEQ residual normalise(p − min(q, p/ρ*)·(1 − (1 − β)^m)/β)',
  'recursive-residual': 'the target left after every candidate’s rejection (r ← normalise(max(0, r − q)) each time)',
  'chained-residual': 'the last block’s normalised residual r (no unused draft agreed with the accepted prefix)',
  'transport-residual': 'the target’s mass the transport plan did not match, normalise(max(0, p − inflow))',
};

const at = (position: number) => `position ${position + 1}`;
const draftName = (k: number) => `draft ${k + 1}`;
const list = (drafts: readonly number[]) => drafts.map((k) => k + 1).join(', ');

type Text = (token: number) => string;

/**
 * One reader per decision kind: its line, and what it does to the cells. A method that adds a kind to
 * DecisionNote adds its reader here; the Record type makes that a compile error to forget.
 */
interface Reader<N extends DecisionNote> {
  line(note: N, draw: Draw | null, text: Text): string;
  cell?(note: N): { draft: number; position: number } | null;
}

type Readers = { [K in DecisionNote['kind']]: Reader<Extract<DecisionNote, { kind: K }>> };

const bernoulli = (draw: Draw | null): Draw & { kind: 'bernoulli' } => {
  if (draw?.kind !== 'bernoulli') throw new Error('a test note must describe a Bernoulli draw');
  return draw;
};

function skippedText(skipped: readonly { draft: number; reason: 'used' | 'disagrees'; at: number }[]): string {
  return skipped
    .map((s) => `${draftName(s.draft)} ${s.reason === 'used' ? 'was already used' : `differs at ${at(s.at)}`}`)
    .join('; ');
}

const READERS: Readers = {
  'token-test': {
    line: (_note, draw) =>
      `${comparison(bernoulli(draw), 'min(1, p/q)')} → ${bernoulli(draw).value ? 'accepted' : 'rejected'}`,
    cell: (note) => ({ draft: note.draft, position: note.position }),
  },
  'block-test': {
    line(note, draw) {
      const d = bernoulli(draw);
      const h =
        note.i === note.n
          ? `h_${note.i} = w_${note.i}`
          : `h_${note.i} = Z_${note.i}/(Z_${note.i} + 1 − w_${note.i}) = ${num(note.Z)}/(${num(note.Z)} + 1 − ${num(note.w)})`;
      const verdict = d.value
        ? `→ block accepted up to here: τ = ${note.i}${note.i === note.n ? ' (the whole block)' : ''}`
        : `→ not accepted up to here${note.i > 1 ? `, test τ = ${note.i - 1} next` : ': τ = 0, the block keeps none of its tokens'}`;
      return `${comparison(d, h)} ${verdict}`;
    },
    cell: (note) => ({ draft: note.draft, position: note.start + note.i - 1 }),
  },
  'kseq-test': {
    line(note, draw) {
      const d = bernoulli(draw);
      return `${comparison(d, 'min(1, p/(ρ*·q))')} → ${d.value ? 'accepted' : 'rejected'} (ρ* = ${num(note.rho)}, β = ${num(note.beta)}; drafts ${list(note.alive)} alive here)`;
    },
    cell: (note) => ({ draft: note.draft, position: note.position }),
  },
  'recursive-test': {
    line(note, draw) {
      const d = bernoulli(draw);
      return `${comparison(d, 'min(1, r/q)')} → ${d.value ? 'accepted' : 'rejected'} (r = ${num(note.r)}; drafts ${list(note.alive)} alive here)`;
    },
    cell: (note) => ({ draft: note.draft, position: note.position }),
  },
  'transport-choice': {
    line(note, draw, text) {
      if (draw?.kind !== 'categorical') throw new Error('a transport note must describe a categorical draw');
      const token = note.classTokens[draw.index];
      if (token !== undefined && note.tokens.includes(token)) {
        const [u, f] = pair(draw.u, note.cumulative[draw.index] ?? 1);
        return `u = ${u} < F(“${text(token)}”) = ${f} → “${text(token)}” accepted (the transport plan’s flow; α* = ${num(note.alpha)} here; drafts ${list(note.alive)} alive)`;
      }
      const [u, f] = pair(draw.u, note.cumulative[draw.index - 1] ?? 0);
      return `u = ${u} ≥ F(matched) = ${f} → no candidate accepted (α* = ${num(note.alpha)} here; drafts ${list(note.alive)} alive)`;
    },
    cell(note) {
      return { draft: note.alive[0] as number, position: note.position };
    },
  },
  'draft-selected': {
    line: (note) =>
      note.from === 0
        ? `${draftName(note.draft)} is block-verified from ${at(0)}${note.skipped.length ? ` (${skippedText(note.skipped)})` : ''}`
        : `${draftName(note.draft)} is block-verified from ${at(note.from)}: it agrees with the ${note.from} accepted token${note.from === 1 ? '' : 's'}, and the last block’s residual r becomes its root target${note.skipped.length ? ` (${skippedText(note.skipped)})` : ''}`,
  },
  'drafts-exhausted': {
    line: (note) =>
      `no unused draft agrees with the ${note.from} accepted token${note.from === 1 ? '' : 's'} (${skippedText(note.skipped)}): the step ends`,
  },
  final: {
    line(note, draw, text) {
      const index = draw?.kind === 'categorical' ? draw.index : null;
      const u = draw ? `u = ${draw.u.toFixed(3)} → ` : '';
      const token = index === null ? 'the final token' : `“${text(index)}”`;
      const fallback = note.fallback ? ' (rounding emptied the residual, so the target row stood in for it)' : '';
      return `${u}${token} at ${at(note.position)}, drawn from ${FINAL_LAWS[note.law]}${fallback}`;
    },
  },
};

function read<K extends DecisionNote['kind']>(
  note: Extract<DecisionNote, { kind: K }>,
): Reader<Extract<DecisionNote, { kind: K }>> {
  return READERS[note.kind as K] as Reader<Extract<DecisionNote, { kind: K }>>;
}

/** A line for a draw no note described: the comparison alone. */
function bareLine(draw: Draw): string {
  return draw.kind === 'bernoulli'
    ? `${comparison(draw, 'threshold')} → ${draw.value ? 'yes' : 'no'}`
    : `u = ${num(draw.u)} → index ${draw.index}`;
}

/** Why an unexamined cell was not examined, from what the trace did around it. */
interface Context {
  /** SpecTr nodes: who was alive at each position and which draft's token was accepted there. */
  nodes: Map<number, { alive: number[]; acceptedDraft: number | null }>;
  /** SpecTr-GBV: drafts passed over, and where each selected draft's block began. */
  passedOver: Map<number, number>;
  blockFrom: Map<number, number>;
  acceptedPrefixFrom: Map<number, number>;
}

/** A tested cell as the reader sees it: a position past its draft's end is the padding after its last token. */
function located(
  tested: { draft: number; position: number } | null,
  drafts: StepShape['drafts'],
  text: Text,
): Pick<DecisionLine, 'cell' | 'where'> {
  if (!tested) return { cell: null, where: null };
  const draft = drafts[tested.draft] ?? [];
  const where = `${draftName(tested.draft)}, ${at(tested.position)}`;
  if (tested.position < draft.length || draft.length === 0) return { cell: tested, where };
  const last = draft.length - 1;
  return {
    cell: { draft: tested.draft, position: last },
    where: `${where} (padding: the draft ended at ${at(last)} with “${text(draft[last] as number)}”, so nothing was drafted here)`,
  };
}

/**
 * Which drafts tested the `accepted` tokens of the chosen draft: the chosen one, or an earlier draft whose tested
 * prefix it shares (SpecTr-GBV verifies a later draft from the accepted prefix; SpecTr keeps every draft through it).
 */
export function testedDrafts(
  cells: readonly (readonly CellExplanation[])[],
  chosen: number,
  accepted: number,
): number[] {
  const tested = new Set<number>();
  for (let j = 0; j < accepted; j++) {
    if (cells[chosen]?.[j]?.examined) tested.add(chosen);
    else {
      const k = cells.findIndex((row) => row[j]?.examined && row[j]?.status === 'accepted');
      tested.add(k < 0 ? chosen : k);
    }
  }
  return [...tested].sort((a, b) => a - b);
}

/** Where the accepted tokens come from: "from draft 3", or "tested in draft 2 (draft 3, which shares it, was chosen)". */
export function acceptedFrom(cells: readonly (readonly CellExplanation[])[], chosen: number, accepted: number): string {
  const tested = testedDrafts(cells, chosen, accepted);
  if (tested.every((k) => k === chosen)) return `from ${draftName(chosen)}`;
  const them = accepted === 1 ? 'it' : 'them';
  return `tested in draft${tested.length === 1 ? '' : 's'} ${list(tested)} (${draftName(chosen)}, which shares ${them}, was chosen)`;
}

/** The grid's heading: "draft 3 was chosen, 2 of its tokens accepted", or which drafts tested them when others did. */
export function choiceSummary(
  cells: readonly (readonly CellExplanation[])[],
  chosen: number,
  accepted: number,
): string {
  const tested = testedDrafts(cells, chosen, accepted);
  if (tested.every((k) => k === chosen)) return `${draftName(chosen)} was chosen, ${accepted} of its tokens accepted`;
  return `${accepted} token${accepted === 1 ? '' : 's'} accepted, ${acceptedFrom(cells, chosen, accepted)}`;
}

export function explainStep(decisions: readonly DecisionRecord[], shape: StepShape, text: Text): ExplainedStep {
  const { drafts, validLengths } = shape;
  const cells: (CellExplanation | null)[][] = drafts.map((draft) => draft.map(() => null));
  const setCell = (k: number, j: number, cell: CellExplanation) => {
    const row = cells[k];
    if (row && j < row.length) row[j] = cell;
  };
  const context: Context = {
    nodes: new Map(),
    passedOver: new Map(),
    blockFrom: new Map(),
    acceptedPrefixFrom: new Map(),
  };
  const lines: DecisionLine[] = [];
  let finalLine: string | null = null;
  let chosen: number | null = null;
  let accepted: number | null = null;
  let finalToken: number | null = null;

  // Block verification: each block's τ (absent: 0), and the cells whose test failed, settled once all are read.
  const blockTau = new Map<string, number>();
  const failedBlockCells: { block: string; draft: number; position: number; i: number }[] = [];

  decisions.forEach(({ note, draw }, index) => {
    if (!note) {
      if (draw) lines.push({ decision: index, text: bareLine(draw), cell: null, where: null });
      return;
    }
    const reader = read(note);
    const text_ = reader.line(note, draw, text);
    lines.push({ decision: index, text: text_, ...located(reader.cell?.(note) ?? null, drafts, text) });
    const passed = draw?.kind === 'bernoulli' && draw.value;
    switch (note.kind) {
      case 'token-test':
      case 'kseq-test':
      case 'recursive-test':
        setCell(note.draft, note.position, {
          status: passed ? 'accepted' : 'rejected',
          examined: true,
          line: text_,
          decision: index,
        });
        if (note.kind !== 'token-test') {
          const node = context.nodes.get(note.position) ?? { alive: note.alive, acceptedDraft: null };
          if (passed) node.acceptedDraft = note.draft;
          context.nodes.set(note.position, node);
        }
        break;
      case 'transport-choice': {
        const token = draw?.kind === 'categorical' ? note.classTokens[draw.index] : undefined;
        const winner = token === undefined ? -1 : note.tokens.indexOf(token);
        const node = { alive: note.alive, acceptedDraft: winner < 0 ? null : (note.alive[winner] as number) };
        context.nodes.set(note.position, node);
        note.alive.forEach((k, i) => {
          if (i === winner)
            setCell(k, note.position, { status: 'accepted', examined: true, line: text_, decision: index });
          else if (note.tokens[i] !== token)
            setCell(k, note.position, {
              status: 'rejected',
              examined: true,
              line: winner < 0 ? text_ : `${text_}, not this token`,
              decision: index,
            });
        });
        break;
      }
      case 'block-test': {
        const end = note.start + note.i - 1;
        const block = `${note.draft}:${note.start}`;
        if (passed) blockTau.set(block, note.i);
        else failedBlockCells.push({ block, draft: note.draft, position: end, i: note.i });
        setCell(note.draft, end, {
          status: passed ? 'accepted' : 'rejected',
          examined: true,
          line: text_,
          decision: index,
        });
        if (passed && draw?.kind === 'bernoulli') {
          const test = comparison(draw, `h_${note.i}`);
          for (let j = note.start; j < end; j++) {
            setCell(note.draft, j, {
              status: 'accepted',
              examined: true,
              line: `with the block up to ${at(end)}, where ${test}`,
              decision: index,
              keptByBlock: true,
            });
          }
        }
        break;
      }
      case 'draft-selected':
        context.blockFrom.set(note.draft, note.from);
        for (const skip of note.skipped) if (skip.reason === 'disagrees') context.passedOver.set(skip.draft, skip.at);
        break;
      case 'drafts-exhausted':
        for (const skip of note.skipped) if (skip.reason === 'disagrees') context.passedOver.set(skip.draft, skip.at);
        break;
      case 'final':
        finalLine = text_;
        chosen = note.draft;
        accepted = note.position;
        finalToken = draw?.kind === 'categorical' ? draw.index : null;
        break;
    }
  });

  // A failed block test says the block is not kept up to there. Only the first position past τ is replaced (by
  // the correction): the cells after it were dropped with it, and a token the schema forced is never rejected.
  for (const { block, draft, position, i } of failedBlockCells) {
    const cell = cells[draft]?.[position];
    const forced = shape.sources?.[draft]?.[position] === 'grammar';
    const cut = i - 1 - (blockTau.get(block) ?? 0);
    if (!cell || (cut === 0 && !forced)) continue;
    // Said without τ: a replay shows this line before the test that settles τ.
    const why = forced ? 'the schema forced this token (q = p = 1), so it is not rejected; ' : '';
    setCell(draft, position, {
      ...cell,
      status: 'not-kept',
      line: `${cell.line} — not kept: ${why}the block stops before it`,
    });
  }

  const explained = drafts.map((draft, k) =>
    draft.map((token, j): CellExplanation => {
      const invalid = j >= (validLengths[k] ?? draft.length);
      // I counts from a draft's first disallowed token to its end: only that first one is what the schema refused.
      const why = j === validLengths[k] ? 'not allowed by the schema here' : 'after an invalid token';
      const known = cells[k]?.[j];
      if (known) {
        // K-SEQ: a candidate rejected before another candidate with the same token was accepted stays in the tree.
        const node = context.nodes.get(j);
        const acceptedDraft = node?.acceptedDraft ?? null;
        if (
          known.status === 'rejected' &&
          acceptedDraft !== null &&
          acceptedDraft !== k &&
          drafts[acceptedDraft]?.[j] === token
        ) {
          return {
            ...known,
            status: 'accepted',
            line: `${known.line}; but ${draftName(acceptedDraft)}’s same token was accepted, so this draft stays in the tree`,
          };
        }
        if (!invalid || known.status === 'accepted') return known;
        return { ...known, status: 'invalid', line: `${known.line} — ${why} (p = 0)` };
      }
      const reason = notExaminedReason(context, drafts, k, j, token);
      if (reason.sharesAccepted) return { status: 'accepted', examined: false, line: reason.line, decision: null };
      return {
        status: invalid ? 'invalid' : 'not-examined',
        examined: false,
        line: invalid ? `${why}; ${reason.line}` : reason.line,
        decision: null,
      };
    }),
  );
  return { cells: explained, lines, chosen, accepted, finalToken, finalLine };
}

function notExaminedReason(
  context: Context,
  drafts: StepShape['drafts'],
  k: number,
  j: number,
  token: number,
): { line: string; sharesAccepted: boolean } {
  const node = context.nodes.get(j);
  if (node) {
    if (!node.alive.includes(k))
      return {
        line: 'not examined: this draft had left the tree (an earlier token differed from the accepted one)',
        sharesAccepted: false,
      };
    if (node.acceptedDraft !== null) {
      const same = drafts[node.acceptedDraft]?.[j] === token;
      return same
        ? {
            line: `not examined itself: same token as ${draftName(node.acceptedDraft)}, accepted there, so this draft stays in the tree`,
            sharesAccepted: true,
          }
        : { line: `not examined: ${draftName(node.acceptedDraft)}’s token was accepted first`, sharesAccepted: false };
    }
  }
  const from = context.blockFrom.get(k);
  if (from !== undefined && j < from)
    return { line: 'not examined again: same token as the accepted prefix', sharesAccepted: true };
  const differs = context.passedOver.get(k);
  if (differs !== undefined)
    return {
      line: `not examined: this draft differs from the accepted prefix at ${at(differs)}, so it cannot extend it`,
      sharesAccepted: false,
    };
  return { line: 'not examined: the step had already ended', sharesAccepted: false };
}

export interface TreeNode {
  /** Unique per node: 'root' (the context), the prefix tree's node index, or 'final'. */
  id: string;
  parent: string | null;
  token: number | null;
  depth: number;
  /** Drafts through this node. */
  drafts: number[];
  status: CellStatus | 'root' | 'final';
  /** On the emitted path: the accepted prefix, then the final (correction or bonus) leaf. */
  emitted: boolean;
  /**
   * Where the drafted token came from (the same for every draft through the node: each source is a function of the
   * prefix); null for the root and the final leaf.
   */
  source: DraftSource | null;
}

const STATUS_RANK: Readonly<Record<CellStatus, number>> = {
  accepted: 4,
  rejected: 3,
  'not-kept': 2,
  invalid: 1,
  'not-examined': 0,
};

/**
 * The step's drafts merged into a prefix tree (src/core/tokenTree.ts): one node per distinct prefix (plus the
 * root and the final token's leaf), each coloured by the most telling outcome among its drafts' cells.
 */
export function draftTree(
  shape: StepShape,
  cells: readonly (readonly CellExplanation[])[],
  emitted: { draft: number; accepted: number; finalToken: number | null; finalOrigin: 'correction' | 'bonus' | null },
): TreeNode[] {
  const tree = prefixTree(shape.drafts);
  const idOf = (node: number) => (node === -1 ? 'root' : String(node));
  const nodes: TreeNode[] = [
    {
      id: 'root',
      parent: null,
      token: null,
      depth: 0,
      drafts: shape.drafts.map((_, k) => k),
      status: 'root',
      emitted: true,
      source: null,
    },
  ];
  for (let node = 0; node < tree.size; node++) {
    nodes.push({
      id: idOf(node),
      parent: idOf(tree.parents[node] as number),
      token: tree.tokens[node] as number,
      depth: tree.depths[node] as number,
      drafts: [],
      status: 'not-examined',
      emitted: false,
      source: 'model',
    });
  }
  tree.nodeOf.forEach((path, k) => {
    path.forEach((node, j) => {
      const entry = nodes[node + 1] as TreeNode;
      const status = cells[k]?.[j]?.status ?? 'not-examined';
      if (entry.drafts.length === 0) entry.source = shape.sources?.[k]?.[j] ?? 'model';
      entry.drafts.push(k);
      entry.emitted ||= k === emitted.draft && j < emitted.accepted;
      if (STATUS_RANK[status] > STATUS_RANK[entry.status as CellStatus]) entry.status = status;
    });
  });
  if (emitted.finalToken !== null && emitted.finalOrigin !== null) {
    const parent = emitted.accepted === 0 ? -1 : (tree.nodeOf[emitted.draft]?.[emitted.accepted - 1] ?? -1);
    nodes.push({
      id: 'final',
      parent: idOf(parent),
      token: emitted.finalToken,
      depth: emitted.accepted + 1,
      drafts: [emitted.draft],
      status: 'final',
      emitted: true,
      source: null,
    });
  }
  return nodes;
}

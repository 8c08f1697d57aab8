import type { RandomSource } from '../random';
import { kSeqRule, optimalRho, overlapMass, verifyTree, type NodeRule } from './spectr';
import { drawResidual, type DraftBlockView } from './view';
import type { VerifyOutcome } from './types';

/**
 * Transport-optimal verification of m i.i.d. candidate tokens at one node (issue 18).
 *
 * A lossless rule couples the candidates' multiset S with an output Y ~ target; it accepts when Y ∈ S. The
 * best coupling is a maximum flow: source → S (capacity P(S)), S → y for each y ∈ S, y → sink (capacity
 * target(y)). By max-flow/min-cut its value is α* = 1 − max_H [draft(H)^m − target(H)] (theory.ts). Given the
 * candidates, the rule accepts y with probability f(S, y)/P(S), and otherwise draws the correction from
 * target − inflow: every token then comes out with probability inflow(y) + (target(y) − inflow(y)) = target(y).
 *
 * Exact when every token with target and draft mass is a node of the flow, i.e. when the multisets over them
 * number at most MULTISET_BUDGET (every test instance; a model's row with a few dozen live tokens at K = 2).
 * Past that, the flow keeps the tokens with the most overlap min(target, draft) and lumps the rest into one
 * class that sends no flow, and the node uses that restricted flow or SpecTr's K-SEQ, whichever accepts
 * more: still lossless, with an acceptance below α* (the step inspector shows both).
 */
export const MULTISET_BUDGET = 2_000;

export interface TransportPlan {
  /** The tokens that are nodes of the flow; every other drafted token maps to the lumped class. */
  readonly classTokens: readonly number[];
  /** Whether the flow covers every token (then `acceptance` is α*). */
  readonly exact: boolean;
  /** Restricted plans only: K-SEQ accepts more than the restricted flow, so the node uses K-SEQ. */
  readonly useKSeq: boolean;
  /** Total flow: the probability that the rule accepts a candidate, over fresh candidates. */
  readonly acceptance: number;
  /**
   * For each multiset key (sorted class indices): its probability, its distinct flow classes' tokens, and the
   * flow to each of them.
   */
  readonly multisets: ReadonlyMap<string, { probability: number; tokens: Int32Array; flow: Float64Array }>;
  /** target − inflow, floored at 0: the (unnormalised) law of the correction token. */
  readonly residual: Float64Array;
}

/** C(n + m − 1, m): multisets of size m over n classes. */
function multisetCount(n: number, m: number): number {
  let count = 1;
  for (let i = 1; i <= m; i++) count = (count * (n - 1 + i)) / i;
  return count;
}

function classTokensFor(target: Float64Array, draft: Float64Array, m: number): { tokens: number[]; exact: boolean } {
  const useful: number[] = [];
  let lumped = false;
  for (let x = 0; x < draft.length; x++) {
    if ((draft[x] as number) <= 0) continue;
    if ((target[x] as number) > 0) useful.push(x);
    else lumped = true; // A drafted token the target never emits can receive no flow.
  }
  const overlap = (x: number) => Math.min(target[x] as number, draft[x] as number);
  let keep = useful.length;
  while (keep > 0 && multisetCount(keep + (lumped || keep < useful.length ? 1 : 0), m) > MULTISET_BUDGET) keep--;
  if (keep === useful.length) return { tokens: useful, exact: true };
  const tokens = [...useful].sort((a, b) => overlap(b) - overlap(a) || (draft[b] as number) - (draft[a] as number) || a - b).slice(0, keep);
  return { tokens: tokens.sort((a, b) => a - b), exact: false };
}

/** Every multiset of size m over n classes, as non-decreasing index arrays. */
function forEachMultiset(n: number, m: number, visit: (classes: readonly number[]) => void): void {
  const current: number[] = [];
  const walk = (from: number) => {
    if (current.length === m) {
      visit(current);
      return;
    }
    for (let c = from; c < n; c++) {
      current.push(c);
      walk(c);
      current.pop();
    }
  };
  walk(0);
}

/** Dinic's maximum flow on a small graph with real capacities. */
class FlowNetwork {
  private readonly heads: number[][];
  private readonly to: number[] = [];
  private readonly capacity: number[] = [];
  private level: Int32Array;
  private cursor: Int32Array;

  constructor(readonly nodes: number) {
    this.heads = Array.from({ length: nodes }, () => []);
    this.level = new Int32Array(nodes);
    this.cursor = new Int32Array(nodes);
  }

  /** Returns the edge id; its flow is the residual capacity of the reverse edge (id ^ 1). */
  addEdge(from: number, to: number, capacity: number): number {
    const id = this.to.length;
    this.to.push(to, from);
    this.capacity.push(capacity, 0);
    (this.heads[from] as number[]).push(id);
    (this.heads[to] as number[]).push(id + 1);
    return id;
  }

  flowOn(edge: number): number {
    return this.capacity[edge ^ 1] as number;
  }

  maxFlow(source: number, sink: number): number {
    let total = 0;
    while (this.buildLevels(source, sink)) {
      this.cursor.fill(0);
      for (;;) {
        const pushed = this.push(source, sink, Infinity);
        if (!(pushed > 0)) break;
        total += pushed;
      }
    }
    return total;
  }

  private buildLevels(source: number, sink: number): boolean {
    this.level.fill(-1);
    this.level[source] = 0;
    const queue = [source];
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head] as number;
      for (const edge of this.heads[node] as number[]) {
        const next = this.to[edge] as number;
        if ((this.capacity[edge] as number) > 0 && this.level[next] === -1) {
          this.level[next] = (this.level[node] as number) + 1;
          queue.push(next);
        }
      }
    }
    return this.level[sink] !== -1;
  }

  private push(node: number, sink: number, limit: number): number {
    if (node === sink) return limit;
    const edges = this.heads[node] as number[];
    for (; (this.cursor[node] as number) < edges.length; this.cursor[node] = (this.cursor[node] as number) + 1) {
      const edge = edges[this.cursor[node] as number] as number;
      const next = this.to[edge] as number;
      const room = this.capacity[edge] as number;
      if (!(room > 0) || this.level[next] !== (this.level[node] as number) + 1) continue;
      const pushed = this.push(next, sink, Math.min(limit, room));
      if (pushed > 0) {
        this.capacity[edge] = room - pushed;
        this.capacity[edge ^ 1] = (this.capacity[edge ^ 1] as number) + pushed;
        return pushed;
      }
    }
    return 0;
  }
}

/** The transport-optimal plan for m i.i.d. candidates from `draft`, to be resolved against `target`. */
export function transportPlan(target: Float64Array, draft: Float64Array, m: number): TransportPlan {
  const { tokens: classTokens, exact } = classTokensFor(target, draft, m);
  const classMass = classTokens.map((x) => draft[x] as number);
  let otherMass = 0;
  const isClass = new Uint8Array(draft.length);
  for (const x of classTokens) isClass[x] = 1;
  for (let x = 0; x < draft.length; x++) if (!isClass[x]) otherMass += draft[x] as number;
  if (otherMass > 0) classMass.push(otherMass);
  const classes = classMass.length;
  const kept = classTokens.length;

  const factorial = (n: number) => {
    let f = 1;
    for (let i = 2; i <= n; i++) f *= i;
    return f;
  };
  const entries: { key: string; classes: number[]; counts: number[]; probability: number }[] = [];
  forEachMultiset(classes, m, (multiset) => {
    let probability = factorial(m);
    let run = 0;
    for (let i = 0; i < m; i++) {
      run = i > 0 && multiset[i] === multiset[i - 1] ? run + 1 : 1;
      probability *= (classMass[multiset[i] as number] as number) / run;
    }
    const classesIn = [...new Set(multiset)];
    entries.push({ key: multiset.join(','), classes: classesIn, counts: classesIn.map((c) => multiset.filter((x) => x === c).length), probability });
  });

  const source = 0;
  const sink = 1;
  const network = new FlowNetwork(2 + entries.length + kept);
  const classNode = (c: number) => 2 + entries.length + c;
  entries.forEach((entry, s) => network.addEdge(source, 2 + s, entry.probability));
  for (let c = 0; c < kept; c++) network.addEdge(classNode(c), sink, target[classTokens[c] as number] as number);
  // Among the maximum flows, prefer accepting tokens that more of the candidates share: they all stay alive
  // for the next depth. Edges join in order of multiplicity, and Dinic's augments keep what was pushed.
  const edges = entries.map((entry) => entry.classes.map(() => -1));
  let acceptance = 0;
  for (let multiplicity = m; multiplicity >= 1; multiplicity--) {
    entries.forEach((entry, s) => {
      entry.classes.forEach((c, i) => {
        if (c < kept && entry.counts[i] === multiplicity) (edges[s] as number[])[i] = network.addEdge(2 + s, classNode(c), entry.probability);
      });
    });
    acceptance += network.maxFlow(source, sink);
  }

  const inflow = new Float64Array(target.length);
  const multisets = new Map<string, { probability: number; tokens: Int32Array; flow: Float64Array }>();
  entries.forEach((entry, s) => {
    const flowClasses = entry.classes.filter((c) => c < kept);
    const flow = new Float64Array(flowClasses.length);
    entry.classes.forEach((c, i) => {
      const edge = (edges[s] as number[])[i] as number;
      if (edge < 0) return;
      const token = classTokens[c] as number;
      flow[flowClasses.indexOf(c)] = network.flowOn(edge);
      inflow[token] = (inflow[token] as number) + network.flowOn(edge);
    });
    multisets.set(entry.key, { probability: entry.probability, tokens: Int32Array.from(flowClasses, (c) => classTokens[c] as number), flow });
  });
  const residual = target.map((t, x) => Math.max(0, t - (inflow[x] as number)));
  const useKSeq = !exact && 1 - (1 - overlapMass(target, draft, optimalRho(target, draft, m))) ** m > acceptance;
  return { classTokens, exact, useKSeq, acceptance, multisets, residual };
}

/**
 * Plans depend only on (target row, draft row, m), and a run or a proof meets the same rows again and again
 * (the proofs on every path, the simulator in every context): keep the latest plans, keyed by content.
 */
const PLAN_CACHE_SIZE = 256;
const planCache = new Map<string, { target: Float64Array; draft: Float64Array; plan: TransportPlan }[]>();

function rowsKey(target: Float64Array, draft: Float64Array, m: number): string {
  // FNV-1a over the rows' bytes; equal keys are confirmed by comparing the rows.
  let hash = 0x811c9dc5;
  for (const row of [target, draft]) {
    const bytes = new Uint8Array(row.buffer, row.byteOffset, row.byteLength);
    for (let i = 0; i < bytes.length; i++) hash = Math.imul(hash ^ (bytes[i] as number), 0x01000193);
  }
  return `${m}:${target.length}:${hash >>> 0}`;
}

const sameRow = (a: Float64Array, b: Float64Array) => a.length === b.length && a.every((value, i) => Object.is(value, b[i]));

export function cachedTransportPlan(target: Float64Array, draft: Float64Array, m: number): TransportPlan {
  const key = rowsKey(target, draft, m);
  const bucket = planCache.get(key) ?? [];
  const hit = bucket.find((entry) => sameRow(entry.target, target) && sameRow(entry.draft, draft));
  if (hit) return hit.plan;
  const plan = transportPlan(target, draft, m);
  if (planCache.size >= PLAN_CACHE_SIZE) planCache.delete(planCache.keys().next().value as string);
  bucket.push({ target: Float64Array.from(target), draft: Float64Array.from(draft), plan });
  planCache.set(key, bucket);
  return plan;
}

/** One node: the index of the accepted candidate, or the correction token. */
export const transportNode: NodeRule = (target, draft, candidateToken, m, source) => {
  // One candidate: the optimal coupling accepts with min(1, target/draft), which is K-SEQ at ρ* = 1.
  if (m === 1) return kSeqRule(target, draft, candidateToken, m, source);
  const plan = cachedTransportPlan(target, draft, m);
  if (plan.useKSeq) return kSeqRule(target, draft, candidateToken, m, source);
  const lumpedClass = plan.classTokens.length;
  const classOf = (token: number) => {
    const c = plan.classTokens.indexOf(token);
    return c < 0 ? lumpedClass : c;
  };
  const candidates = Array.from({ length: m }, (_, i) => candidateToken(i));
  const key = candidates
    .map(classOf)
    .sort((a, b) => a - b)
    .join(',');
  const entry = plan.multisets.get(key);
  if (!entry) throw new Error(`optimal-tree: candidates [${candidates.join(',')}] could not have been drafted`);
  // Weights: the flow to each token in the multiset, then the mass the flow left unmatched (rejection).
  const weights = new Float64Array(entry.flow.length + 1);
  weights.set(entry.flow);
  weights[entry.flow.length] = Math.max(0, entry.probability - entry.flow.reduce((a, b) => a + b, 0));
  const choice = source.categorical(weights);
  if (choice < entry.flow.length) return { acceptedCandidate: candidates.indexOf(entry.tokens[choice] as number) };
  return { correction: drawResidual((w) => source.categorical(w), plan.residual, target) };
};

/**
 * optimal-tree: the drafts walked depth by depth like the SpecTr tree (spec §3); at every node the drafts
 * still alive are resolved by the transport-optimal rule, so one node accepts with probability α*.
 */
export function verifyOptimalTree(view: DraftBlockView, source: RandomSource): VerifyOutcome {
  return verifyTree(view, source, transportNode);
}

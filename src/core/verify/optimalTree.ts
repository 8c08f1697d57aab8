import type { RandomSource } from '../random';
import { kSeqRule, optimalRho, overlapMass, verifyTree, type NodeRule } from './spectr';
import { drawResidual, sumOf, type DraftBlockView } from './view';
import type { VerifyOutcome } from './types';

/**
 * Transport-optimal verification of m i.i.d. candidate tokens at one node.
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
  /** m, and the number of classes (the flow's tokens, then the lumped class when there is one). */
  readonly m: number;
  readonly classes: number;
  /**
   * Multiset r (see multisetRank) in slots r·m .. r·m + m − 1: its probability, and the flow from it to the
   * class in each slot (classes in non-decreasing order; a repeated class carries its flow on its first slot).
   */
  readonly probability: Float64Array;
  readonly members: Int32Array;
  readonly flow: Float64Array;
  /** target − inflow, floored at 0: the (unnormalised) law of the correction token. */
  readonly residual: Float64Array;
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
  while (keep > 0 && binomial(keep + (lumped || keep < useful.length ? 1 : 0) + m - 1, m) > MULTISET_BUDGET) keep--;
  if (keep === useful.length) return { tokens: useful, exact: true };
  const tokens = [...useful]
    .sort((a, b) => overlap(b) - overlap(a) || (draft[b] as number) - (draft[a] as number) || a - b)
    .slice(0, keep);
  return { tokens: tokens.sort((a, b) => a - b), exact: false };
}

/** C(n, k) for the small n and k of a plan. */
function binomial(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let value = 1;
  for (let i = 1; i <= k; i++) value = (value * (n - k + i)) / i;
  return Math.round(value);
}

/**
 * The colex rank of a non-decreasing class sequence c_0 ≤ … ≤ c_{m−1}: with d_i = c_i + i strictly
 * increasing, rank = Σ C(d_i, i + 1). Ranks run over 0 .. C(n + m − 1, m) − 1.
 */
function multisetRank(sorted: ArrayLike<number>): number {
  let rank = 0;
  for (let i = 0; i < sorted.length; i++) rank += binomial((sorted[i] as number) + i, i + 1);
  return rank;
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

  let factorial = 1;
  for (let i = 2; i <= m; i++) factorial *= i;
  const count = binomial(classes + m - 1, m);
  const probability = new Float64Array(count);
  const members = new Int32Array(count * m);
  const multiplicity = new Int32Array(count * m);
  forEachMultiset(classes, m, (multiset) => {
    const r = multisetRank(multiset);
    let p = factorial;
    let run = 0;
    for (let i = 0; i < m; i++) {
      const c = multiset[i] as number;
      run = i > 0 && c === multiset[i - 1] ? run + 1 : 1;
      p *= (classMass[c] as number) / run;
      members[r * m + i] = c;
      // The first slot of a run carries the run's length; the others 0 (no edge of their own).
      multiplicity[r * m + i] = 0;
      multiplicity[r * m + i - run + 1] = run;
    }
    probability[r] = p;
  });

  const source = 0;
  const sink = 1;
  const network = new FlowNetwork(2 + count + kept);
  const classNode = (c: number) => 2 + count + c;
  for (let r = 0; r < count; r++) network.addEdge(source, 2 + r, probability[r] as number);
  for (let c = 0; c < kept; c++) network.addEdge(classNode(c), sink, target[classTokens[c] as number] as number);
  // Among the maximum flows, prefer accepting tokens that more of the candidates share: they all stay alive
  // for the next depth. Edges join in order of multiplicity, and Dinic's augments keep what was pushed.
  const edges = new Int32Array(count * m).fill(-1);
  let acceptance = 0;
  for (let shared = m; shared >= 1; shared--) {
    for (let slot = 0; slot < count * m; slot++) {
      const c = members[slot] as number;
      if (c < kept && multiplicity[slot] === shared)
        edges[slot] = network.addEdge(
          2 + Math.floor(slot / m),
          classNode(c),
          probability[Math.floor(slot / m)] as number,
        );
    }
    acceptance += network.maxFlow(source, sink);
  }

  const inflow = new Float64Array(target.length);
  const flow = new Float64Array(count * m);
  for (let slot = 0; slot < count * m; slot++) {
    if ((edges[slot] as number) < 0) continue;
    flow[slot] = network.flowOn(edges[slot] as number);
    const token = classTokens[members[slot] as number] as number;
    inflow[token] = (inflow[token] as number) + (flow[slot] as number);
  }
  const residual = target.map((t, x) => Math.max(0, t - (inflow[x] as number)));
  const useKSeq = !exact && 1 - (1 - overlapMass(target, draft, optimalRho(target, draft, m))) ** m > acceptance;
  return { classTokens, exact, useKSeq, acceptance, m, classes, probability, members, flow, residual };
}

/**
 * Plans depend only on (target row, draft row, m), and a run or a proof meets the same rows again and again
 * (the proofs on every path, the simulator in every context, a decode at every step's alternatives): keep
 * the latest plans, keyed by content, up to PLAN_CACHE_SLOTS multiset slots in all (about 16 bytes each).
 */
const PLAN_CACHE_SLOTS = 1 << 21;
const planCache = new Map<string, { target: Float64Array; draft: Float64Array; plan: TransportPlan }[]>();
let cachedSlots = 0;

function rowsKey(target: Float64Array, draft: Float64Array, m: number): string {
  // FNV-1a over the rows' bytes; equal keys are confirmed by comparing the rows.
  let hash = 0x811c9dc5;
  for (const row of [target, draft]) {
    const bytes = new Uint8Array(row.buffer, row.byteOffset, row.byteLength);
    for (let i = 0; i < bytes.length; i++) hash = Math.imul(hash ^ (bytes[i] as number), 0x01000193);
  }
  return `${m}:${target.length}:${hash >>> 0}`;
}

const sameRow = (a: Float64Array, b: Float64Array) =>
  a.length === b.length && a.every((value, i) => Object.is(value, b[i]));
const slotsOf = (plan: TransportPlan) => plan.flow.length + plan.residual.length;

export function cachedTransportPlan(target: Float64Array, draft: Float64Array, m: number): TransportPlan {
  const key = rowsKey(target, draft, m);
  const hit = planCache.get(key)?.find((entry) => sameRow(entry.target, target) && sameRow(entry.draft, draft));
  if (hit) return hit.plan;
  const plan = transportPlan(target, draft, m);
  cachedSlots += slotsOf(plan);
  while (cachedSlots > PLAN_CACHE_SLOTS && planCache.size > 0) {
    const [oldestKey, oldest] = planCache.entries().next().value as [string, { plan: TransportPlan }[]];
    for (const entry of oldest) cachedSlots -= slotsOf(entry.plan);
    planCache.delete(oldestKey);
  }
  const bucket = planCache.get(key) ?? [];
  bucket.push({ target: Float64Array.from(target), draft: Float64Array.from(draft), plan });
  planCache.set(key, bucket);
  return plan;
}

/** One node: the index of the accepted candidate, or the correction token. */
export const transportNode: NodeRule = (target, draft, candidateToken, m, source, place) => {
  // One candidate: the optimal coupling accepts with min(1, target/draft), which is K-SEQ at ρ* = 1.
  if (m === 1) return kSeqRule(target, draft, candidateToken, m, source, place);
  const plan = cachedTransportPlan(target, draft, m);
  if (plan.useKSeq) return kSeqRule(target, draft, candidateToken, m, source, place);
  const lumpedClass = plan.classTokens.length;
  const candidates = Array.from({ length: m }, (_, i) => candidateToken(i));
  const sorted = candidates
    .map((token) => {
      const c = plan.classTokens.indexOf(token);
      return c < 0 ? lumpedClass : c;
    })
    .sort((a, b) => a - b);
  if (sorted.some((c) => c >= plan.classes))
    throw new Error(`optimal-tree: candidates [${candidates.join(',')}] could not have been drafted`);
  const r = multisetRank(sorted);
  // Weights: the flow to each slot's class, then the mass the flow left unmatched (rejection).
  const weights = new Float64Array(m + 1);
  let matched = 0;
  for (let i = 0; i < m; i++) {
    weights[i] = plan.flow[r * m + i] as number;
    matched += weights[i] as number;
  }
  weights[m] = Math.max(0, (plan.probability[r] as number) - matched);
  // The token each weight stands for (-1: the lumped class, which receives no flow), for the step inspector.
  const slotToken = (i: number) => plan.classTokens[plan.members[r * m + i] as number] ?? -1;
  source.explain?.({
    kind: 'transport-choice',
    position: place.position,
    alive: place.alive,
    tokens: candidates,
    classTokens: Array.from({ length: m }, (_, i) => slotToken(i)),
    cumulative: cumulativeShares(weights),
    alpha: plan.acceptance,
  });
  const choice = source.categorical(weights);
  if (choice < m) return { acceptedCandidate: candidates.indexOf(slotToken(choice)) };
  source.explain?.({
    kind: 'final',
    law: 'transport-residual',
    draft: place.alive[0] as number,
    position: place.position,
    fallback: !(sumOf(plan.residual) > 0),
  });
  return { correction: drawResidual((w) => source.categorical(w), plan.residual, target) };
};

/** For the step inspector: the categorical's cumulative shares, F_c = Σ_{i ≤ c} w_i / Σ w. */
function cumulativeShares(weights: Float64Array): number[] {
  const total = sumOf(weights);
  let running = 0;
  return Array.from(weights, (weight) => (running += weight) / total);
}

/**
 * optimal-tree: the drafts walked depth by depth like the SpecTr tree (spec §3); at every node the drafts
 * still alive are resolved by the transport-optimal rule, so one node accepts with probability α*.
 */
export function verifyOptimalTree(view: DraftBlockView, source: RandomSource): VerifyOutcome {
  return verifyTree(view, source, transportNode);
}

/**
 * What a talk scene claims to show (src/store/talk.ts, `"shows"`), and how a step record is read for it. A
 * scene's caption is only as good as the step on screen: loading a talk runs each scene's seeded run until a
 * step shows its claim (src/engine/sceneFinder.ts), opens the scene on that step, and refuses the talk when
 * none does. The tests are read off the same explanation the inspector draws (src/core/explain.ts), so "the
 * step shows an invalidated token" means the tree on screen has a struck-out node.
 */
import { draftTree, explainStep, type TreeNode } from '../core/explain';
import type { StepRecord } from './stepRecord';

export const SCENE_CLAIMS = [
  'target-alone',
  'acceptance',
  'invalidation',
  'rejection',
  'residual',
  'branching',
  'block-acceptance',
  'race',
] as const;
export type SceneClaim = (typeof SCENE_CLAIMS)[number];

/** Each claim in words: what the room must see, as the refusal names what is missing. */
export const CLAIM_TEXT: Readonly<Record<SceneClaim, string>> = {
  'target-alone': 'the target model writing alone (method ar)',
  acceptance: 'a proposed draft token (not forced by the schema) accepted by the target',
  invalidation: 'a draft token struck out by the schema',
  rejection: 'a proposed draft token rejected by the target',
  residual: 'a correction drawn from the residual after a rejection',
  branching: 'drafts that share a prefix and then branch',
  'block-acceptance': 'two or more proposed draft tokens kept at once by one block test',
  race: 'the race of every method',
};

/** The claims a step record cannot show: they are about the whole run (`race`: the scene stops at a race). */
export const RUN_CLAIMS: readonly SceneClaim[] = ['race'];

/** The step's drafts as the tree on screen draws them (src/ui/DraftTree.tsx). */
function treeOf(step: StepRecord): TreeNode[] {
  const shape = { drafts: step.drafts, validLengths: step.validLengths, sources: step.draftSources };
  const explained = explainStep(step.decisions ?? [], shape, String);
  const last = step.emitted.at(-1);
  const finalOrigin = last && (last.origin === 'correction' || last.origin === 'bonus') ? last.origin : null;
  return draftTree(shape, explained.cells, {
    draft: step.chosen,
    accepted: step.accepted,
    finalToken: finalOrigin && last ? last.token : null,
    finalOrigin,
  });
}

const proposed = (node: TreeNode) => node.source !== null && node.source !== 'grammar';

/** A prefix node (not the context) with two or more drafted children: the drafts agreed on it, then parted. */
export function isBranchingNode(node: TreeNode, nodes: readonly TreeNode[]): boolean {
  if (node.status === 'root' || node.status === 'final') return false;
  return nodes.filter((child) => child.parent === node.id && child.status !== 'final').length >= 2;
}

/** A passing block test that kept two or more proposed (not forced) tokens at once. */
function keepsProposedBlock(step: StepRecord): boolean {
  return (step.decisions ?? []).some(({ note, draw }) => {
    if (note?.kind !== 'block-test' || draw?.kind !== 'bernoulli' || !draw.value) return false;
    const sources = step.draftSources[note.draft] ?? [];
    return sources.slice(note.start, note.start + note.i).filter((source) => source !== 'grammar').length >= 2;
  });
}

/** Whether `step` shows `claim` on screen. Run claims (RUN_CLAIMS) are never shown by a step. */
export function stepShows(claim: SceneClaim, step: StepRecord): boolean {
  if (claim === 'race') return false;
  if (claim === 'target-alone') return step.drafts.length === 0 && step.emitted.some((t) => t.origin === 'target');
  if (step.drafts.length === 0 || step.decisions === null) return false;
  const nodes = treeOf(step);
  switch (claim) {
    case 'acceptance':
      return nodes.some((node) => proposed(node) && node.status === 'accepted');
    case 'invalidation':
      return nodes.some((node) => node.status === 'invalid');
    case 'rejection':
      return nodes.some((node) => proposed(node) && node.status === 'rejected');
    case 'residual':
      return (
        step.emitted.at(-1)?.origin === 'correction' &&
        nodes.some((node) => proposed(node) && node.status === 'rejected')
      );
    case 'branching':
      return nodes.some((node) => isBranchingNode(node, nodes));
    case 'block-acceptance':
      return keepsProposedBlock(step);
  }
}

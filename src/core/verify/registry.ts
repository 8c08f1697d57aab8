/**
 * The one registry of verification methods. Everything a method needs outside its verifier file is here:
 * the UI's label, description and shortcut, how many drafts it reads, its case in accept.wgsl. The ids
 * (VerifierId, MethodId), the app's method list, the shortcut list and the WGSL constants derive from it,
 * so adding an entry makes the compiler point at every Record<VerifierId, …> that lacks it.
 */
import type { RandomSource } from '../random';
import { verifyGbv } from './gbv';
import { verifyOptimalTree } from './optimalTree';
import { verifyRecursiveRejection, verifySpectr } from './spectr';
import { verifySpectrGbv } from './spectrGbv';
import { verifyTokenwise } from './tokenwise';
import type { VerifyOutcome } from './types';
import type { DraftBlockView } from './view';

export type Verifier = (view: DraftBlockView, source: RandomSource) => VerifyOutcome;

export interface MethodEntry {
  /** Shown in the form, the race, the charts and exports. */
  readonly label: string;
  /** One line for the method list. */
  readonly description: string;
  /** Whether it reads one draft (and reports K = 1) or all K. */
  readonly drafts: 'one' | 'all';
  /** Its case in accept.wgsl, or null where only the CPU twin implements it (the engine verifies it there). */
  readonly wgslCode: number | null;
  /** The key that selects it in the app, or null for a baseline the app does not offer. */
  readonly shortcut: string | null;
  readonly verify: Verifier;
}

export const METHOD_REGISTRY = {
  tokenwise: {
    label: 'Token-wise',
    description: 'One draft, each token accepted with min(1, target/draft) (Leviathan et al. 2023).',
    drafts: 'one',
    wgslCode: 0,
    shortcut: '2',
    verify: verifyTokenwise,
  },
  gbv: {
    label: 'GBV',
    description: 'One draft verified as a block: greedy block verification (Sun et al. 2024).',
    drafts: 'one',
    wgslCode: 1,
    shortcut: '3',
    verify: verifyGbv,
  },
  spectr: {
    label: 'SpecTr',
    description: 'K i.i.d. drafts verified token by token with K-SEQ (Sun et al. 2023).',
    drafts: 'all',
    wgslCode: 2,
    shortcut: '4',
    verify: verifySpectr,
  },
  'spectr-gbv': {
    label: 'SpecTr-GBV',
    description:
      'K drafts verified as blocks, one after another, each from where the last stopped (recursive GBV): SpecLab’s lossless form of SpecTr-GBV (Lin et al. 2026), not the paper’s Algorithm 1–2, whose acceptance formula is not lossless (see docs/verification.md).',
    drafts: 'all',
    wgslCode: 3,
    shortcut: '5',
    verify: verifySpectrGbv,
  },
  'optimal-tree': {
    label: 'Optimal tree',
    description:
      'K i.i.d. drafts verified token by token with the transport-optimal rule: at the first position it accepts with α*, the most any lossless verifier can there; over a whole block it is no optimum, and GBV can accept more (CPU only).',
    drafts: 'all',
    wgslCode: null,
    shortcut: '6',
    verify: verifyOptimalTree,
  },
  'recursive-rejection': {
    label: 'Recursive rejection',
    description:
      'K drafts, multi-candidate recursive rejection (Yang et al. 2024): a baseline for the proofs and the GPU twin.',
    drafts: 'all',
    wgslCode: 4,
    shortcut: null,
    verify: verifyRecursiveRejection,
  },
} as const satisfies Record<string, MethodEntry>;

type Registry = typeof METHOD_REGISTRY;
/** Every verifier: the app's methods and the baselines. */
export type VerifierId = keyof Registry;
/** The methods the app offers (those with a shortcut). */
export type MethodId = { [Id in VerifierId]: Registry[Id]['shortcut'] extends string ? Id : never }[VerifierId];

const entries = Object.entries(METHOD_REGISTRY) as [VerifierId, MethodEntry][];

export const VERIFIER_IDS: readonly VerifierId[] = entries.map(([id]) => id);
export const METHOD_IDS: readonly MethodId[] = entries
  .filter(([, entry]) => entry.shortcut !== null)
  .map(([id]) => id as MethodId);
/** The methods accept.wgsl implements; the engine verifies the others on the CPU twin whatever the backend. */
export const GPU_VERIFIER_IDS: readonly VerifierId[] = entries
  .filter(([, entry]) => entry.wgslCode !== null)
  .map(([id]) => id);

export const methodEntry = (method: VerifierId): MethodEntry => METHOD_REGISTRY[method];

/** How many of the K drafts a method reads. */
export function draftsUsed(method: VerifierId, K: number): number {
  return METHOD_REGISTRY[method].drafts === 'one' ? 1 : K;
}

/** The method's case in accept.wgsl, or null where it has none. */
export function wgslMethodCode(method: VerifierId): number | null {
  return METHOD_REGISTRY[method].wgslCode;
}

/** The WGSL constant naming a method's case: METHOD_SPECTR_GBV for 'spectr-gbv'. */
export const wgslMethodConstant = (method: VerifierId): string => `METHOD_${method.toUpperCase().replaceAll('-', '_')}`;

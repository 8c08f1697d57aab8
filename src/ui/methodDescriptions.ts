import type { MethodId } from '../core/verify';

export const METHOD_DESCRIPTIONS: readonly { id: MethodId; name: string; summary: string }[] = [
  { id: 'tokenwise', name: 'Token-wise', summary: 'One draft, each token accepted with min(1, target/draft) (Leviathan et al. 2023).' },
  { id: 'gbv', name: 'GBV', summary: 'One draft verified as a block: greedy block verification (Sun et al. 2024).' },
  { id: 'spectr', name: 'SpecTr', summary: 'K i.i.d. drafts verified token by token with K-SEQ (Sun et al. 2023).' },
  {
    id: 'spectr-gbv',
    name: 'SpecTr-GBV',
    summary: 'K drafts verified as blocks, in the lossless recursive-GBV form (Lin et al. 2026; see the README).',
  },
  {
    id: 'optimal-tree',
    name: 'Optimal tree',
    summary: 'K i.i.d. drafts verified token by token with the transport-optimal rule: each position accepts with α*, the most any lossless verifier can (CPU only).',
  },
];

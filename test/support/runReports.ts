/** A well-formed run report, as the history stores one, for tests that bend one field of it. */
import { findPreset, presetParams } from '../../src/contract/runParams';
import type { RunReport } from '../../src/contract/runReport';
import { emptyCounters, exportCounters } from '../../src/core/metrics';

export function goodReport(): RunReport {
  const params = presetParams(findPreset('person'));
  const counters = emptyCounters(params.L);
  return {
    params,
    requestedK: params.K,
    tokens: [1, 2, 3],
    text: '{}',
    json: '{}',
    counters,
    verdict: { kind: 'valid' },
    ending: 'stopped',
    constraintStart: 0,
    timings: {} as RunReport['timings'],
    steps: 0,
    scoring: { positions: 0, batchedPositions: 0, treeSteps: 0, batchedSteps: 0 },
    unenforced: [],
    wallMs: 1,
    generationMs: 1,
    tokensPerSecond: 3,
    metrics: exportCounters(counters),
  };
}

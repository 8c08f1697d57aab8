/**
 * bench (Chromium): the decode table in the page, with the app's choices on this machine by default:
 * the models on `provider` and the verifier on `verifier` (on SwiftShader, wasm and the CPU twin); the
 * bundled pair, or a --pair at the URLs tools/cli/pairServer.ts gives the page.
 */
import { runtimeFor } from '../../src/models/browserRuntime';
import { setupEngine } from '../../src/engine/setup';
import { interpretedValidator } from '../../src/grammar/interpretedValidator';
import { BUNDLED_PAIR, targetUrlFor } from '../../src/contract/modelPairs';
import { httpReader } from '../../src/models/httpReader';
import { loadPair } from '../../src/models/loader';
import type { ExecutionProvider } from '../../src/contract/protocol';
import type { ScoringPlan } from '../../src/contract/stepRecord';
import { runDecodeBench, type BenchSelection, type DecodeRow } from './decodeBench';
import { costRatio as measureCostRatio } from './modelsBench';
import type { Spread } from '../../src/core/fairTiming';
import type { PagePair } from '../cli/pairServer';

declare global {
  interface Window {
    speclabDecodeBench: (
      seeds: number,
      provider: ExecutionProvider,
      verifier: 'gpu' | 'cpu',
      treeScoring: boolean,
      selection: Omit<BenchSelection, 'cpuClock'>,
      pagePair: PagePair | null,
    ) => Promise<
      | { adapter: string; costRatio: number; costRatioSpread: Spread; scoring: ScoringPlan; rows: DecodeRow[] }
      | { error: string }
    >;
    speclabDecodeLog: string[];
  }
}

window.speclabDecodeLog = [];
window.speclabDecodeBench = async (seeds, provider, verifier, treeScoring, selection, pagePair) => {
  try {
    const setup = await setupEngine({
      provider,
      verifier,
      gpu: navigator.gpu,
      loadPair: async (chosen) =>
        loadPair(
          await runtimeFor(chosen),
          {
            draft: httpReader(pagePair?.draftUrl ?? BUNDLED_PAIR.draftUrl, false),
            target: httpReader(pagePair?.targetUrl ?? targetUrlFor(BUNDLED_PAIR, chosen), false),
          },
          chosen,
        ),
      validate: interpretedValidator,
      treeScoring,
    });
    if (setup.provider !== provider)
      throw new Error(`the models could not run on ${provider}: ${setup.fallbackReason}`);
    if (setup.verifier !== verifier)
      throw new Error(`steps could not be verified on ${verifier}: ${setup.verifierReason}`);
    const { pair } = setup.engine;
    const costRatioSpread = await measureCostRatio(pair.draft.session, pair.target.session);
    const costRatio = costRatioSpread.median;
    const rows = await runDecodeBench(
      setup.engine,
      seeds,
      costRatio,
      (line) => window.speclabDecodeLog.push(line),
      selection,
    );
    await setup.dispose();
    return { adapter: setup.verifierAdapter ?? 'cpu', costRatio, costRatioSpread, scoring: setup.engine.scoring, rows };
  } catch (error) {
    return { error: String(error) };
  }
};

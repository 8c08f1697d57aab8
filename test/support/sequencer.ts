import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds the slowest files took in a full run on two cores (`vitest run --reporter=json`, each file's
 * endTime − startTime). Two files run at a time, so starting the longest first keeps a long file from
 * running alone at the end; refresh a figure when its file's cost changes a lot.
 */
const MEASURED_SECONDS: Readonly<Record<string, number>> = {
  'test/gpu/verifier.test.ts': 473,
  'test/core/verify/monteCarlo.test.ts': 264,
  'test/gpu/gpuPath.test.ts': 261,
  'test/ui/reliability.browser.test.ts': 180,
  'test/models/chromium.test.ts': 87,
  'test/ui/app.browser.test.ts': 84,
  'test/engine/bundledPipeline.test.ts': 72,
  'test/engine/setup.test.ts': 56,
  'test/gpu/deviceLoss.test.ts': 55,
  'test/engine/lossless.test.ts': 54,
  'test/ui/deviceLoss.browser.test.ts': 49,
  'test/core/verify/optimum.test.ts': 32,
  'test/gpu/probs.test.ts': 26,
  'test/ui/teaching.browser.test.ts': 24,
  'test/ui/bench.browser.test.ts': 24,
  'test/gpu/chromium.test.ts': 21,
  'test/tools/bundledTokenizer.test.ts': 20,
};

/** The files above, longest first, then every other file in vitest's own order (its cached durations, else size). */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (file: TestSpecification) => MEASURED_SECONDS[relative(file.project.config.root, file.moduleId)] ?? 0;
    return (await super.sort(files)).sort((a, b) => seconds(b) - seconds(a));
  }
}

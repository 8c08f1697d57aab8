import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds the slowest files took in a full run, two at a time on two cores (`vitest run --reporter=json`,
 * each file's endTime − startTime). Starting the longest first keeps a long file from running alone at the
 * end; refresh a figure when its file's cost changes a lot.
 */
const MEASURED_SECONDS: Readonly<Record<string, number>> = {
  'test/gpu/verifier.test.ts': 457,
  'test/gpu/gpuPath.test.ts': 261,
  'test/core/verify/monteCarlo.test.ts': 129,
  'test/ui/reliability.browser.test.ts': 115,
  'test/ui/app.browser.test.ts': 85,
  'test/models/chromium.test.ts': 80,
  'test/core/verify/optimum.test.ts': 32,
  'test/engine/lossless.test.ts': 28,
  'test/engine/bundledPipeline.test.ts': 24,
  'test/ui/presentation.browser.test.ts': 22,
  'test/gpu/chromium.test.ts': 20,
  'test/ui/deviceLoss.browser.test.ts': 19,
  'test/engine/setup.test.ts': 19,
  'test/ui/bench.browser.test.ts': 16,
  'test/gpu/deviceLoss.test.ts': 16,
  'test/core/verify/lossless.test.ts': 16,
  'test/ui/teaching.browser.test.ts': 15,
};

/** The files above, longest first, then every other file in vitest's own order (its cached durations, else size). */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (file: TestSpecification) => MEASURED_SECONDS[relative(file.project.config.root, file.moduleId)] ?? 0;
    return (await super.sort(files)).sort((a, b) => seconds(b) - seconds(a));
  }
}

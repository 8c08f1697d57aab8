import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds the slowest files took in a full run, two at a time on two cores (`vitest run --reporter=json`,
 * each file's endTime − startTime). Starting the longest first keeps a long file from running alone at the
 * end; refresh a figure when its file's cost changes a lot.
 */
const MEASURED_SECONDS: Readonly<Record<string, number>> = {
  'test/ui/reliability.browser.test.ts': 185,
  'test/gpu/gpuPath.test.ts': 167,
  'test/ui/app.browser.test.ts': 135,
  'test/cli/scripts.smoke.test.ts': 135,
  'test/models/chromium.test.ts': 120,
  'test/ui/hardwareDefault.browser.test.ts': 110,
  'test/ui/stage.browser.test.ts': 89,
  'test/ui/lecture.browser.test.ts': 62,
  'test/ui/hostileInput.browser.test.ts': 62,
  'test/core/verify/monteCarlo.test.ts': 49,
  'test/ui/teaching.browser.test.ts': 41,
  'test/ui/deviceLoss.browser.test.ts': 37,
  'test/engine/lossless.test.ts': 36,
  'test/gpu/verifier.test.ts': 35,
  'test/ui/presentation.browser.test.ts': 35,
  'test/ui/bench.browser.test.ts': 33,
  'test/gpu/chromium.test.ts': 29,
  'test/core/verify/optimum.test.ts': 24,
};

/** The files above, longest first, then every other file in vitest's own order (its cached durations, else size). */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (file: TestSpecification) => MEASURED_SECONDS[relative(file.project.config.root, file.moduleId)] ?? 0;
    return (await super.sort(files)).sort((a, b) => seconds(b) - seconds(a));
  }
}

import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds the slowest files took in a full run, two at a time on two cores (`vitest run --reporter=json`,
 * each file's endTime − startTime). Starting the longest first keeps a long file from running alone at the
 * end; refresh a figure when its file's cost changes a lot.
 */
const MEASURED_SECONDS: Readonly<Record<string, number>> = {
  'test/ui/app.browser.test.ts': 189,
  'test/cli/scripts.smoke.test.ts': 187,
  'test/ui/reliability.browser.test.ts': 142,
  'test/models/chromium.test.ts': 116,
  'test/ui/hardwareDefault.browser.test.ts': 102,
  'test/ui/hostileInput.browser.test.ts': 80,
  'test/ui/lecture.browser.test.ts': 79,
  'test/ui/stage.browser.test.ts': 79,
  'test/gpu/gpuPath.test.ts': 47,
  'test/gpu/verifier.test.ts': 40,
  'test/ui/teaching.browser.test.ts': 35,
  'test/ui/deviceLoss.browser.test.ts': 31,
  'test/ui/presentation.browser.test.ts': 26,
  'test/ui/bench.browser.test.ts': 26,
  'test/gpu/chromium.test.ts': 24,
};

/** The files above, longest first, then every other file in vitest's own order (its cached durations, else size). */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (file: TestSpecification) => MEASURED_SECONDS[relative(file.project.config.root, file.moduleId)] ?? 0;
    return (await super.sort(files)).sort((a, b) => seconds(b) - seconds(a));
  }
}

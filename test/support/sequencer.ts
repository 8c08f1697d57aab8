import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds the slowest files took in a full run, two at a time on two cores (`vitest run --reporter=json`,
 * each file's endTime − startTime; the fresh-clone CI run of e4ebb38). Starting the longest first keeps a long file from running alone at the
 * end; refresh a figure when its file's cost changes a lot.
 */
const MEASURED_SECONDS: Readonly<Record<string, number>> = {
  'test/ui/stage.browser.test.ts': 89,
  'test/cli/scripts.smoke.test.ts': 78,
  'test/ui/lecture.browser.test.ts': 69,
  'test/ui/hostileInput.browser.test.ts': 68,
  'test/ui/app.browser.test.ts': 61,
  'test/models/chromium.test.ts': 48,
  'test/ui/reliability.browser.test.ts': 47,
  'test/ui/hardwareDefault.browser.test.ts': 38,
  'test/engine/lossless.test.ts': 31,
  'test/gpu/gpuPath.test.ts': 26,
  'test/gpu/verifier.test.ts': 23,
  'test/ui/teaching.browser.test.ts': 21,
};

/** The files above, longest first, then every other file in vitest's own order (its cached durations, else size). */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (file: TestSpecification) =>
      MEASURED_SECONDS[relative(file.project.config.root, file.moduleId)] ?? 0;
    return (await super.sort(files)).sort((a, b) => seconds(b) - seconds(a));
  }
}

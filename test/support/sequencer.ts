import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds the slowest files took in a full `npm test` on the 2-core development machine, two at a time (each
 * file's duration as vitest records it; a run of main in December 2026, 1,360 s in all). Three are scaled by their
 * times alone before and after a change: stage and readmeLecture (their race scenes race at 50 tokens a round) and
 * serveHostile (two time limits waited out side by side). Starting the longest first keeps a long file from
 * running alone at the end: an unlisted file starts only after every listed one, so a slow file missing here
 * (replicaPair, room) ends the run late; refresh a figure when its file's cost changes a lot.
 */
const MEASURED_SECONDS: Readonly<Record<string, number>> = {
  'test/ui/stage.browser.test.ts': 204,
  'test/cli/scripts.smoke.test.ts': 199,
  'test/ui/replicaPair.browser.test.ts': 168,
  'test/ui/app.browser.test.ts': 163,
  'test/ui/lecture.browser.test.ts': 151,
  'test/ui/hostileInput.browser.test.ts': 142,
  'test/ui/reliability.browser.test.ts': 117,
  'test/models/chromium.test.ts': 111,
  'test/ui/room.browser.test.ts': 107,
  'test/ui/hardwareDefault.browser.test.ts': 85,
  'test/ui/readmeLecture.browser.test.ts': 63,
  'test/engine/lossless.test.ts': 59,
  'test/ui/presentation.browser.test.ts': 47,
  'test/ui/teaching.browser.test.ts': 46,
  'test/cli/serveHostile.test.ts': 35,
};

/** The files above, longest first, then every other file in vitest's own order (its cached durations, else size). */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (file: TestSpecification) =>
      MEASURED_SECONDS[relative(file.project.config.root, file.moduleId)] ?? 0;
    return (await super.sort(files)).sort((a, b) => seconds(b) - seconds(a));
  }
}

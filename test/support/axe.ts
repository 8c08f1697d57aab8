import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';

/** axe-core's serious and critical violations on the page as it is now, each as "rule: first target". */
export async function axeProblems(page: Page): Promise<string[]> {
  // Legacy mode runs axe in the page itself; the default opens a helper page, which needs a context of our own.
  const { violations } = await new AxeBuilder({ page }).setLegacyMode(true).analyze();
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes[0]?.target.join(' ')}`);
}

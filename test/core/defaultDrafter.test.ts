import { describe, expect, it } from 'vitest';
import { DEFAULT_DRAFTER } from '../../src/core/draftLaw';
import { SCHEMA_PRESETS } from '../../src/contract/presets';
import { decodeShare, encodeShare } from '../../src/store/shareUrl';
import { createSpecStore } from '../../src/store/store';
import { COMMANDS } from '../../tools/cli/commands';

describe('the default drafter has one home', () => {
  it('every CLI that takes a drafter defaults to it', () => {
    const defaults = Object.values(COMMANDS).flatMap((command) =>
      Object.entries(command.options).flatMap(([name, option]) =>
        (name === 'drafter' || name === 'drafters') && 'default' in option
          ? [{ command: command.name, name, value: option.default }]
          : [],
      ),
    );
    expect(defaults.map(({ command }) => command).sort()).toEqual(
      expect.arrayContaining(['bench', 'generate', 'scorecard', 'serve', 'sweep']),
    );
    for (const each of defaults)
      expect(each, `${each.command} --${each.name}`).toMatchObject({ value: DEFAULT_DRAFTER });
  });

  it("the app's fresh form drafts with it, and a link made from that form carries it", () => {
    const store = createSpecStore({ post: () => undefined, restart: () => undefined });
    const { params } = store.getState();
    expect(params.drafter).toBe(DEFAULT_DRAFTER);
    const link = encodeShare({ params, preset: SCHEMA_PRESETS[1]?.id ?? 'person' });
    expect(new URLSearchParams(link.replace(/^#/, '')).get('drafter')).toBe(DEFAULT_DRAFTER);
    // Read with a fallback that drafts otherwise, the link still gives the default: it comes from the link.
    expect(decodeShare(link, { ...params, drafter: 'model' })?.params.drafter).toBe(DEFAULT_DRAFTER);
  });
});

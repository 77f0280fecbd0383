import { optionDefs, optionSections } from '@switchyard/domain';
import { describe, expect, it } from 'vitest';
import { SETTINGS_LAYOUT } from './settings-layout';

describe('settings layout', () => {
  it('shows every option key exactly once, in the tab of its section', () => {
    const sections = optionSections();
    for (const [tab, cards] of Object.entries(SETTINGS_LAYOUT)) {
      const keys = cards.flatMap((c) => c.keys);
      expect(new Set(keys).size, tab).toBe(keys.length);
      expect([...keys].sort(), tab).toEqual([...sections[tab as keyof typeof sections]].sort());
    }
    expect(
      Object.values(SETTINGS_LAYOUT)
        .flat()
        .flatMap((c) => c.keys),
    ).toHaveLength(Object.keys(optionDefs).length);
  });
});

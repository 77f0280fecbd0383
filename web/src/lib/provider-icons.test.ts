import { reservedModelOwners } from '@switchyard/domain';
import { describe, expect, it } from 'vitest';
import { bundledIcon } from './provider-icons';

describe('bundledIcon', () => {
  it('has a bundled icon for every reserved model owner, never an outside address', () => {
    for (const o of reservedModelOwners()) {
      const src = bundledIcon(o.icon);
      expect(src, o.name).toBeDefined();
      expect(src).not.toMatch(/^https?:/);
    }
  });

  it('reads the icon name from any mirror of the set, PNG or SVG', () => {
    expect(bundledIcon('https://unpkg.com/@lobehub/icons-static-png@1.2.0/dark/claude-color.png')).toBe(
      bundledIcon('https://registry.npmmirror.com/@lobehub/icons-static-png/latest/files/light/claude.png'),
    );
    expect(bundledIcon('https://cdn.example/@lobehub/icons-static-svg/icons/deepseek.svg')).toBeDefined();
  });

  it('leaves every other address alone', () => {
    expect(bundledIcon('https://example.com/openai.png')).toBeUndefined();
    expect(bundledIcon('')).toBeUndefined();
    expect(
      bundledIcon('https://registry.npmmirror.com/@lobehub/icons-static-png/latest/files/light/nope.png'),
    ).toBeUndefined();
  });
});

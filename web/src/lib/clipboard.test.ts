import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { copyText } from './clipboard';
import { toast } from './toast';

vi.mock('./toast', () => ({ toast: { success: vi.fn(), copy: vi.fn() } }));

describe('copyText', () => {
  beforeEach(() => vi.clearAllMocks());
  afterEach(() => vi.unstubAllGlobals());

  it('says "复制…成功！" when the copy works', async () => {
    vi.stubGlobal('isSecureContext', true);
    const writeText = vi.fn(async () => undefined);
    vi.stubGlobal('navigator', { clipboard: { writeText } });
    await expect(copyText('sk-abc', '令牌')).resolves.toBe(true);
    expect(writeText).toHaveBeenCalledWith('sk-abc');
    expect(toast.success).toHaveBeenCalledWith('复制令牌成功！');
  });

  it('keeps the text on screen when the copy fails', async () => {
    vi.stubGlobal('isSecureContext', true);
    vi.stubGlobal('navigator', {
      clipboard: {
        writeText: async () => {
          throw new Error('denied');
        },
      },
    });
    await expect(copyText('sk-abc')).resolves.toBe(false);
    expect(toast.copy).toHaveBeenCalledWith('复制失败，请手动复制：sk-abc');
  });
});

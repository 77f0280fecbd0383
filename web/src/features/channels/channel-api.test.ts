import { afterEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../../lib/toast';
import { saveChannelNumber, updateChannel } from './channel-api';

vi.mock('../../lib/toast', () => ({
  toast: {
    error: vi.fn(),
    info: vi.fn(),
    warning: vi.fn(),
    success: vi.fn(),
    notice: vi.fn(),
    copy: vi.fn(),
  },
}));

function refuse() {
  return vi.fn(
    async () =>
      new Response(
        JSON.stringify({ success: false, message: 'priority must be >= 0', code: 'invalid_request' }),
        {
          status: 400,
        },
      ),
  );
}

describe('channel numbers saved from their table cell', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.mocked(toast.error).mockClear();
  });

  it('sends only the field that changed', async () => {
    const fetch = vi.fn(
      async () => new Response(JSON.stringify({ success: true, message: '', data: { id: 7 } })),
    );
    vi.stubGlobal('fetch', fetch);
    await saveChannelNumber(7, 'weight', 3);
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toMatch(/\/api\/channel$/);
    expect(init.method).toBe('PUT');
    expect(JSON.parse(String(init.body))).toEqual({ id: 7, weight: 3 });
  });

  it('leaves a failure to the page: no toast of the client, the error still thrown', async () => {
    vi.stubGlobal('fetch', refuse());
    await expect(saveChannelNumber(7, 'priority', -1)).rejects.toThrow('priority must be >= 0');
    expect(toast.error).not.toHaveBeenCalled();
    // A full edit still gets the client's toast.
    await expect(updateChannel({ id: 7, priority: -1 })).rejects.toThrow();
    expect(toast.error).toHaveBeenCalledTimes(1);
  });
});

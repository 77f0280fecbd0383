import { afterEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../../lib/toast';
import { saveChannelNumber, updateChannel } from './api';

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
    vi.restoreAllMocks();
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
    const shown = vi.spyOn(toast, 'error').mockImplementation(() => {});
    await expect(saveChannelNumber(7, 'priority', -1)).rejects.toThrow('priority must be >= 0');
    expect(shown).not.toHaveBeenCalled();
    // A full edit still gets the client's toast.
    await expect(updateChannel({ id: 7, priority: -1 })).rejects.toThrow();
    expect(shown).toHaveBeenCalledTimes(1);
  });
});

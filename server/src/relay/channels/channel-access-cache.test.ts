import { describe, expect, it } from 'vitest';
import type { RoutableChannel } from '../routing/routable-channel.js';
import { ChannelAccessCache } from './channel-access-cache.js';
import type { ChannelAccess } from './channel-transports.js';

describe('ChannelAccessCache', () => {
  it('opens a routing entry once, and a replaced entry again', () => {
    const opened: number[] = [];
    const cache = new ChannelAccessCache((c) => {
      opened.push(c.id);
      return { type: c.type, baseUrl: c.baseUrl, key: `key-${c.id}`, other: '', plugin: {} } as ChannelAccess;
    });
    const entry = { id: 7, type: 1, baseUrl: 'http://a' } as RoutableChannel;
    const first = cache.get(entry);
    expect(cache.get(entry)).toBe(first);
    expect(opened).toEqual([7]);
    // A reload builds new entries: their settings are read afresh.
    const reloaded = { id: 7, type: 1, baseUrl: 'http://b' } as RoutableChannel;
    expect(cache.get(reloaded).baseUrl).toBe('http://b');
    expect(opened).toEqual([7, 7]);
  });

  it('does not keep a failure: the next request tries to open the channel again', () => {
    let fail = true;
    const cache = new ChannelAccessCache((c) => {
      if (fail) throw new Error('cannot decrypt');
      return { type: c.type, baseUrl: '', key: 'k', other: '', plugin: {} } as ChannelAccess;
    });
    const entry = { id: 1, type: 1 } as RoutableChannel;
    expect(() => cache.get(entry)).toThrow('cannot decrypt');
    fail = false;
    expect(cache.get(entry).key).toBe('k');
  });
});

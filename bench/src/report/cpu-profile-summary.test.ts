import { describe, expect, it } from 'vitest';
import { areaOf, type CpuProfile, summarizeProfile } from './cpu-profile-summary.js';

describe('areaOf', () => {
  it('names packages (scoped too), server folders and Node internals', () => {
    expect(areaOf('file:///app/node_modules/kysely/dist/esm/x.js', 'f')).toBe('kysely');
    expect(areaOf('file:///app/node_modules/@fastify/cookie/plugin.js', 'f')).toBe('@fastify/cookie');
    expect(areaOf('file:///app/node_modules/a/node_modules/b/i.js', 'f')).toBe('b');
    expect(areaOf('file:///app/server/dist/relay/openai-relay.js', 'f')).toBe('server/relay');
    expect(areaOf('file:///app/server/dist/app.js', 'f')).toBe('server');
    expect(areaOf('node:internal/streams/readable', 'f')).toBe('node:internal');
    expect(areaOf('', '(garbage collector)')).toBe('(garbage collector)');
    expect(areaOf('', 'writev')).toBe('(native)');
  });
});

describe('summarizeProfile', () => {
  it('adds up self time per function and per area, leaving idle time out', () => {
    const frame = (functionName: string, url: string, lineNumber = 0) => ({ functionName, url, lineNumber });
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', '') },
        { id: 2, callFrame: frame('(idle)', '') },
        { id: 3, callFrame: frame('executeQuery', 'file:///app/node_modules/kysely/d.js', 59) },
        { id: 4, callFrame: frame('relayOpenAi', 'file:///app/server/dist/relay/openai-relay.js', 157) },
      ],
      samples: [2, 3, 3, 4, 2, 3],
      timeDeltas: [5000, 1000, 1000, 1000, 5000, 1000],
    };
    const s = summarizeProfile(profile, 5);
    expect(s.busyMs).toBe(4);
    expect(s.functions).toEqual([
      { name: 'executeQuery node_modules/kysely/d.js:60', selfMs: 3, share: 75 },
      { name: 'relayOpenAi server/dist/relay/openai-relay.js:158', selfMs: 1, share: 25 },
    ]);
    expect(s.areas.map((a) => a.name)).toEqual(['kysely', 'server/relay']);
  });
});

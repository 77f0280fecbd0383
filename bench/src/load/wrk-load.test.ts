import { describe, expect, it } from 'vitest';
import { luaString, parseWrkOutput, wrkScript } from './wrk-load.js';

describe('parseWrkOutput', () => {
  it('reads the line the script prints and converts microseconds to milliseconds', () => {
    const stdout = [
      'Running 10s test @ http://127.0.0.1:1234/v1/chat/completions',
      '  1 threads and 64 connections',
      'BENCH_JSON {"requests":50000,"duration_us":10000000,"connect":0,"read":1,"write":0,"status":3,"timeout":2,"p50_us":1250,"p99_us":9800,"max_us":20000}',
      '',
    ].join('\n');
    expect(parseWrkOutput(stdout, 64)).toEqual({
      connections: 64,
      durationS: 10,
      requests: 50000,
      rps: 5000,
      p50Ms: 1.25,
      p99Ms: 9.8,
      maxMs: 20,
      non2xx: 3,
      errors: 3,
    });
  });

  it('fails loudly when the script printed nothing', () => {
    expect(() => parseWrkOutput('unable to connect to 127.0.0.1:1 Connection refused', 1)).toThrow(
      /no result line/,
    );
  });
});

describe('luaString', () => {
  it('picks a long-bracket level the text cannot close', () => {
    expect(luaString('{"a":"b"}')).toBe('[=[\n{"a":"b"}]=]');
    expect(luaString('x]=]y')).toBe('[==[\nx]=]y]==]');
  });
});

describe('wrkScript', () => {
  it('formats one request per key and rotates through them', () => {
    const script = wrkScript({ path: '/v1/chat/completions', body: '{"model":"m"}', keys: ['sk-a', 'sk-b'] });
    expect(script).toContain('[=[\nsk-a]=],');
    expect(script).toContain('[=[\nsk-b]=],');
    expect(script).toContain('local body = [=[\n{"model":"m"}]=]');
    expect(script).toContain('i = i % n + 1');
    expect(script).toContain('BENCH_JSON');
    expect(script).not.toContain('function delay()');
  });

  it('pauses each connection between requests when asked', () => {
    const script = wrkScript({ path: '/p', body: '{}', keys: ['sk-a'], pauseMs: 40 });
    expect(script).toMatch(/function delay\(\)\n {2}return 40\nend/);
  });
});

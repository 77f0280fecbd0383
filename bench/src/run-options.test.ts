import { describe, expect, it } from 'vitest';
import { parseRunOptions, SOAK_TARGET_S, UsageError } from './run-options.js';

describe('parseRunOptions', () => {
  it('runs SQLite with full-length phases, its soak, and PostgreSQL on the short server plan by default', () => {
    const o = parseRunOptions([]);
    expect(o).toMatchObject({
      mode: 'full',
      rounds: 3,
      roundS: 3,
      connections: 64,
      slowStreams: 1000,
      logLevel: 'warn',
    });
    expect(o.variants).toEqual(['sqlite', 'postgres', 'postgres+redis', 'mysql', 'postgres+redis-2nodes']);
    // The server engines: medians of three rounds too, but shorter warm-up and one-connection rounds,
    // without the direct calls or the 1000 slow streams.
    expect(o.server.rounds).toBe(3);
    expect(o.server.warmupS + o.server.oneConnS + o.server.ttfbS).toBeLessThan(
      o.warmupS + o.oneConnS + o.ttfbS,
    );
    expect(o.server).toMatchObject({ direct: false, slowStreamPhase: false });
    // The five-minute soak, its first minute left out of the trend.
    expect(o.soak).toMatchObject({ durationS: SOAK_TARGET_S, warmupS: 60 });
  });

  it('--quick soaks too briefly to be judged, and --no-soak leaves the soak out', () => {
    const quick = parseRunOptions(['--quick']).soak!;
    expect(quick.durationS).toBeLessThan(SOAK_TARGET_S);
    expect(quick.warmupS).toBeLessThan(quick.durationS);
    expect(parseRunOptions(['--no-soak']).soak).toBeUndefined();
  });

  it("runs the gateway on the bench's own Node unless --node names another, and --compare-node adds one", () => {
    expect(parseRunOptions([])).toMatchObject({ node: undefined, compareNode: undefined });
    const o = parseRunOptions(['--node', '/opt/node24/bin/node', '--compare-node', '/usr/bin/node']);
    expect(o).toMatchObject({
      node: '/opt/node24/bin/node',
      compareNode: '/usr/bin/node',
      compareFlags: undefined,
    });
  });

  it('--compare-flags gives the second gateway its own Node options, and needs --compare-node', () => {
    const n = ['--compare-node', '/usr/bin/node'];
    expect(parseRunOptions([...n, '--compare-flags', '']).compareFlags).toEqual([]);
    expect(
      parseRunOptions([...n, '--compare-flags', ' --max-semi-space-size=8  --jitless']).compareFlags,
    ).toEqual(['--max-semi-space-size=8', '--jitless']);
    expect(() => parseRunOptions(['--compare-flags', ''])).toThrow(/needs --compare-node/);
    expect(() => parseRunOptions([...n, '--compare-flags', 'script.js'])).toThrow(UsageError);
  });

  it('--compare-root adds the gateway another checkout built, which --compare-flags may tune', () => {
    expect(parseRunOptions([]).compareRoot).toBeUndefined();
    const o = parseRunOptions(['--compare-root', '/work/before', '--compare-flags=--jitless']);
    expect(o).toMatchObject({
      compareRoot: '/work/before',
      compareNode: undefined,
      compareFlags: ['--jitless'],
    });
  });

  it('--quick shortens every phase and keeps to SQLite', () => {
    const o = parseRunOptions(['--quick']);
    expect(o.mode).toBe('quick');
    expect(o.variants).toEqual(['sqlite']);
    const full = parseRunOptions([]);
    expect(o.rounds * o.roundS).toBeLessThan(full.rounds * full.roundS);
    expect(o.slowStreams).toBe(1000);
  });

  it('takes a list of variants and refuses unknown ones', () => {
    expect(parseRunOptions(['--variants', 'postgres,sqlite']).variants).toEqual(['postgres', 'sqlite']);
    expect(parseRunOptions(['--variants', 'sqlite,postgres,postgres+redis']).variants).toHaveLength(3);
    expect(() => parseRunOptions(['--variants', 'oracle'])).toThrow(UsageError);
    expect(() => parseRunOptions(['--bogus'])).toThrow();
  });
});

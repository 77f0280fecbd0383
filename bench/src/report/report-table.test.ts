import { describe, expect, it } from 'vitest';
import {
  bareSplitNote,
  comparisonTable,
  evaluateTargets,
  formatRatio,
  formatValue,
  renderReport,
  renderTable,
  soakTable,
  targetsTable,
} from './report-table.js';
import type {
  LoadResult,
  SlowBaselines,
  SlowStreamsResult,
  SoakResult,
  TargetResult,
  VariantResult,
} from './results.js';

function load(rps: number, p50Ms: number, extra: Partial<LoadResult> = {}): LoadResult {
  return {
    connections: 64,
    durationS: 10,
    requests: rps * 10,
    rps,
    p50Ms,
    p99Ms: p50Ms * 3,
    maxMs: p50Ms * 5,
    non2xx: 0,
    errors: 0,
    ...extra,
  };
}

const direct: TargetResult = {
  json64: load(50_000, 0.5),
  json1: load(20_000, 0.05, { connections: 1 }),
  ttfb: { samples: 100, p50Ms: 0.1, p99Ms: 0.3, badStreams: 0 },
};
const bare: TargetResult = { json64: load(5000, 12), json1: load(4000, 0.25, { connections: 1 }) };
const slowRun = (rssPeakMb?: number): SlowStreamsResult => ({
  streams: 1000,
  chunkIntervalMs: 200,
  holdS: 15,
  started: 1000,
  completed: 1000,
  failed: 0,
  flowingMin: 990,
  flowingMean: 995,
  ttfbP50Ms: 1,
  ttfbP99Ms: 2,
  ...(rssPeakMb === undefined ? {} : { rssIdleMb: 90, rssPeakMb, rssAfterMb: 120 }),
});
const slow: SlowBaselines = { direct: slowRun(), bare: slowRun(130) };

const gateway: TargetResult = {
  json64: load(5500, 11, { proxyCpuUsPerRequest: 180 }),
  json1: load(3900, 0.3, { connections: 1 }),
  ttfb: { samples: 100, p50Ms: 0.35, p99Ms: 1, badStreams: 0 },
  slow: slowRun(180),
};
const variant: VariantResult = {
  variant: 'sqlite',
  setupS: 3,
  direct,
  bare,
  gateway,
  accounting: [
    {
      phase: 'chat',
      upstreamRequests: 12,
      logRows: 10,
      quotaCharged: 50,
      abandonedCalls: 2,
      ok: true,
      problems: [],
    },
  ],
};

describe('renderTable', () => {
  it('draws a Markdown table with the first column left-aligned and the others right-aligned', () => {
    const text = renderTable(
      ['metric', 'a'],
      [
        ['req/s', '1,000'],
        ['p50 ms', '0.5'],
      ],
    );
    expect(text.split('\n')).toEqual([
      '| metric |     a |',
      '| ------ | ----: |',
      '| req/s  | 1,000 |',
      '| p50 ms |   0.5 |',
    ]);
  });
});

describe('formatValue and formatRatio', () => {
  it('formats thousands and decimals, and a dash for what was not measured', () => {
    expect(formatValue(12345.678, 0)).toBe('12,346');
    expect(formatValue(0.12345, 3)).toBe('0.123');
    expect(formatValue(undefined, 2)).toBe('-');
    expect(formatValue(Number.NaN, 2)).toBe('-');
  });

  it('divides by the reference and refuses a zero or missing one', () => {
    expect(formatRatio(5500, 5000)).toBe('1.10x');
    expect(formatRatio(1, 0)).toBe('-');
    expect(formatRatio(undefined, 3)).toBe('-');
  });
});

describe('comparisonTable', () => {
  it('adds the gateway on a second Node with its ratios to the bare proxy and to the first gateway', () => {
    const other: TargetResult = {
      json64: load(6600, 10, { proxyCpuUsPerRequest: 150 }),
      json1: load(3000, 0.4),
    };
    const lines = comparisonTable(
      { ...variant, node: 'v20.20.2', compare: { node: 'v24.21.0', gateway: other } },
      slow,
    ).split('\n');
    expect(lines[0]).toContain('| gateway (sqlite, Node v20.20.2) |');
    expect(lines[0]).toMatch(/\| gateway \(sqlite, Node v24\.21\.0\) \| gw2\/bare \| gw2\/gw \|$/);
    const cells = (label: string) =>
      lines
        .find((l) => l.startsWith(`| ${label}`))!
        .split('|')
        .map((c) => c.trim());
    expect(cells('chat req/s, 64 conn').slice(-4, -1)).toEqual(['6,600', '1.32x', '1.20x']);
    expect(cells('chat CPU us/request').slice(-4, -1)).toEqual(['150', '-', '0.83x']);
    // A phase only the first gateway ran leaves the second's cells empty.
    expect(cells('1000 streams: RSS MiB').slice(-4, -1)).toEqual(['-', '-', '-']);
  });

  it('puts direct, bare and gateway side by side with both ratios', () => {
    const lines = comparisonTable(variant, slow).split('\n');
    expect(lines[0]).toMatch(
      /\| metric +\| +direct \| bare proxy \| gateway \(sqlite\) \| gw\/direct \| gw\/bare \|/,
    );
    const rps = lines.find((l) => l.startsWith('| chat req/s, 64 conn'))!;
    expect(rps.split('|').map((c) => c.trim())).toEqual([
      '',
      'chat req/s, 64 conn',
      '50,000',
      '5,000',
      '5,500',
      '0.11x',
      '1.10x',
      '',
    ]);
    // Memory belongs to a proxy process: no direct figure; the bare one comes from the slow baselines.
    const rss = lines.find((l) => l.startsWith('| 1000 streams: RSS MiB'))!;
    expect(rss.split('|').map((c) => c.trim())).toEqual([
      '',
      '1000 streams: RSS MiB',
      '-',
      '130',
      '180',
      '-',
      '1.38x',
      '',
    ]);
  });
});

describe('evaluateTargets', () => {
  it('judges added latency against the direct call and throughput against the bare proxy', () => {
    const checks = evaluateTargets(variant);
    const byName = Object.fromEntries(checks.map((c) => [c.target, c]));
    expect(byName['added p50 latency over direct, chat, 1 conn (ms)']).toMatchObject({ ok: true });
    expect(byName['added p50 latency over direct, chat, 1 conn (ms)']!.value).toBeCloseTo(0.25);
    expect(byName['added p50 TTFB over direct, stream, 1 conn (ms)']).toMatchObject({ ok: true });
    expect(byName['chat throughput vs bare proxy']!.value).toBeCloseTo(1.1);
    expect(byName['chat throughput vs bare proxy']!.ok).toBe(true);
    expect(byName['RSS with 1000 streams (MiB)']).toMatchObject({ value: 180, ok: true });
    expect(byName['streams flowing of 1000 concurrent']).toMatchObject({ value: 995, ok: true });
    expect(byName['phases with lost or extra log rows / quota']).toMatchObject({ value: 0, ok: true });
  });

  it('fails what was not measured rather than passing it', () => {
    const checks = evaluateTargets(variant);
    expect(checks.find((c) => c.target === 'stream throughput vs bare proxy')).toMatchObject({
      value: null,
      ok: false,
    });
  });

  it('fails a gateway slower than the limits and counts failed requests', () => {
    const slowGw: VariantResult = {
      ...variant,
      gateway: { ...gateway, json1: load(1000, 0.5, { connections: 1, non2xx: 2 }) },
    };
    const byName = Object.fromEntries(evaluateTargets(slowGw).map((c) => [c.target, c]));
    expect(byName['added p50 latency over direct, chat, 1 conn (ms)']!.ok).toBe(false);
    expect(byName['failed requests through the gateway']).toMatchObject({ value: 2, ok: false });
  });
});

describe('a variant on the short server plan', () => {
  const server: VariantResult = {
    ...variant,
    variant: 'postgres',
    direct: {},
    gateway: { ...gateway, slow: undefined },
    plan: {
      warmupS: 1,
      rounds: 2,
      roundS: 2,
      oneConnS: 1,
      ttfbS: 0.5,
      direct: false,
      slowStreamPhase: false,
    },
  };

  it('judges its latency against the bare proxy of the same rounds, not the direct calls', () => {
    const timed: VariantResult = {
      ...server,
      bare: { ...bare, ttfb: { samples: 100, p50Ms: 0.3, p99Ms: 0.6, badStreams: 0 } },
      gateway: {
        ...server.gateway,
        json1: load(3000, 0.6, { connections: 1 }),
        ttfb: { samples: 100, p50Ms: 0.5, p99Ms: 0.9, badStreams: 0 },
      },
    };
    const byName = Object.fromEntries(evaluateTargets(timed).map((c) => [c.target, c]));
    // 0.35 ms over the bare proxy's 0.25: fails; the stream's first byte 0.2 ms over its 0.3: passes.
    expect(byName['added p50 latency over bare proxy, chat, 1 conn (ms)']).toMatchObject({ ok: false });
    expect(byName['added p50 latency over bare proxy, chat, 1 conn (ms)']!.value).toBeCloseTo(0.35);
    expect(byName['added p50 TTFB over bare proxy, stream, 1 conn (ms)']).toMatchObject({ ok: true });
    expect(byName['added p50 TTFB over bare proxy, stream, 1 conn (ms)']!.value).toBeCloseTo(0.2);
    expect(Object.keys(byName).some((t) => t.includes('over direct'))).toBe(false);
    // A bare proxy not timed at one connection leaves the latency unmeasured, which does not pass.
    const untimed = Object.fromEntries(
      evaluateTargets({ ...timed, bare: { json64: bare.json64 } }).map((c) => [c.target, c]),
    );
    expect(untimed['added p50 latency over bare proxy, chat, 1 conn (ms)']).toMatchObject({
      value: null,
      ok: false,
    });
  });

  it('leaves the 1000-stream rows empty, baselines included, when the phase did not run', () => {
    const rss = comparisonTable(server, slow)
      .split('\n')
      .find((l) => l.startsWith('| 1000 streams: RSS MiB'))!;
    expect(rss.split('|').map((c) => c.trim())).toEqual([
      '',
      '1000 streams: RSS MiB',
      '-',
      '-',
      '-',
      '-',
      '-',
      '',
    ]);
  });

  it('says the 1000-stream phase was left out rather than failing or passing it', () => {
    const byName = Object.fromEntries(evaluateTargets(server).map((c) => [c.target, c]));
    expect(byName['RSS with 1000 streams (MiB)']).toMatchObject({ value: null, ok: false });
    expect(byName['RSS with 1000 streams (MiB)']!.unjudged).toMatch(/not run/);
    expect(byName['streams flowing of 1000 concurrent']!.unjudged).toMatch(/not run/);
  });

  it('judges two nodes by the gateways and the database against one node of the same rounds, the balancer apart', () => {
    const alone: TargetResult = {
      json64: load(5000, 11, { proxyCpuUsPerRequest: 80, databaseCpuUsPerRequest: 20 }),
      stream64: {
        ...load(4000, 11, { proxyCpuUsPerRequest: 100, databaseCpuUsPerRequest: 20 }),
        chunksPerSec: 0,
      },
    };
    const oneNode: VariantResult = {
      ...server,
      variant: 'postgres+redis',
      gateway: { ...server.gateway, ...alone },
    };
    const unmeasured: VariantResult = {
      ...server,
      variant: 'postgres+redis-2nodes',
      gateway: {
        ...server.gateway,
        json64: load(5000, 11, {
          proxyCpuUsPerRequest: 85,
          databaseCpuUsPerRequest: 25,
          balancerCpuUsPerRequest: 40,
        }),
        stream64: {
          ...load(4000, 11, { proxyCpuUsPerRequest: 95, databaseCpuUsPerRequest: 20 }),
          chunksPerSec: 0,
        },
      },
    };
    const two: VariantResult = { ...unmeasured, oneNode: alone };
    const byName = Object.fromEntries(evaluateTargets(two).map((c) => [c.target, c]));
    expect(byName['gateways + database CPU per chat request vs one node']).toMatchObject({ ok: false });
    expect(byName['gateways + database CPU per chat request vs one node']!.value).toBeCloseTo(1.1);
    expect(byName['gateways + database CPU per stream request vs one node']).toMatchObject({ ok: true });
    expect(byName['gateways + database CPU per stream request vs one node']!.value).toBeCloseTo(115 / 120);
    const without = Object.fromEntries(evaluateTargets(unmeasured).map((c) => [c.target, c]));
    expect(without['gateways + database CPU per chat request vs one node']!.unjudged).toMatch(/not measured/);
    // The balancer's CPU has rows of its own, in the two-node table only; one node has its column.
    expect(comparisonTable(two)).toMatch(/\| chat balancer CPU us\/request +\| +- +\| +- +\| +40 /);
    expect(comparisonTable(two)).toMatch(
      /\| chat CPU us\/request +\| +- +\| +- +\| +85 +\| +- +\| +- +\| +80 +\| +- +\| +1\.06x/,
    );
    expect(comparisonTable(oneNode)).not.toMatch(/balancer/);
    expect(evaluateTargets(oneNode).some((c) => c.target.includes('vs one node'))).toBe(false);
  });

  it("prints the two-node control's ratio, and nothing when a figure is missing", () => {
    const measured = (cpu: number | undefined, balancer?: number): TargetResult => ({
      json64: load(1000, 1, {
        ...(cpu === undefined ? {} : { proxyCpuUsPerRequest: cpu }),
        ...(balancer === undefined ? {} : { balancerCpuUsPerRequest: balancer }),
      }),
    });
    expect(bareSplitNote({ one: measured(80), two: measured(100, 20) })).toMatch(
      /two bare proxies behind nginx used 100 us of CPU per chat request against one bare proxy's 80 \(1\.25x; nginx 20 us of its own\)/,
    );
    expect(bareSplitNote({ one: measured(undefined), two: measured(100) })).toBeUndefined();
    const two: VariantResult = {
      ...server,
      variant: 'postgres+redis-2nodes',
      bareSplit: { one: measured(80), two: measured(100, 20) },
    };
    const text = renderReport({
      schema: 1,
      generatedAt: 'now',
      mode: 'full',
      machine: {
        cpus: 2,
        cpuModel: 'x',
        memoryGb: 1,
        node: 'v20',
        os: 'linux',
        othersCpuPercent: { before: 0, during: 0 },
      },
      tools: { upstream: 'u', load: 'l', latency: 'l' },
      scenario: {},
      slowBaselines: slow,
      variants: [two, server],
      skipped: [],
      targets: [],
    });
    expect(text).toMatch(/control \[postgres\+redis-2nodes\]: two bare proxies behind nginx used 100 us/);
    expect(text).not.toMatch(/control \[postgres\]/);
  });

  it('still fails a missing 1000-stream result when the phase was meant to run', () => {
    const missing: VariantResult = { ...server, plan: { ...server.plan!, slowStreamPhase: true } };
    const byName = Object.fromEntries(evaluateTargets(missing).map((c) => [c.target, c]));
    expect(byName['RSS with 1000 streams (MiB)']).toMatchObject({ ok: false });
    expect(byName['RSS with 1000 streams (MiB)']!.unjudged).toBeUndefined();
  });
});

describe('the soak', () => {
  const trend = (startMb: number, endMb: number, slopeMbPerMin: number) => ({
    samples: 240,
    windowS: 60,
    floorsMb: [startMb, (startMb + endMb) / 2, (startMb + endMb) / 2, endMb],
    lowestMb: [startMb - 5, (startMb + endMb) / 2, (startMb + endMb) / 2, endMb],
    startMb,
    endMb,
    maxMb: Math.max(startMb, endMb) + 5,
    slopeMbPerMin,
    sampleSlopeMbPerMin: slopeMbPerMin + 1,
  });
  const soakRun = (durationS: number, rss: SoakResult['rss'], failures = 0): SoakResult => ({
    durationS,
    elapsedS: durationS,
    warmupS: durationS / 5,
    segmentS: 15,
    connections: 32,
    pauseMs: 40,
    sampleS: 1,
    floorWindowS: 60,
    floorHoldS: 10,
    requests: 240_000,
    rps: 800,
    chat: load(800, 1.5, { non2xx: failures }),
    stream: load(800, 2),
    rss,
    heapUsed: trend(40, 41, 0.2),
    rssSlopeBytesPerRequest: 10,
    loopDelay: { p99Ms: 5, maxMs: 20 },
    samples: [],
  });
  const withSoak = (soak: SoakResult): VariantResult => ({ ...variant, gateway: { ...gateway, soak } });
  const soakChecks = (soak: SoakResult) =>
    Object.fromEntries(
      evaluateTargets(withSoak(soak))
        .filter((c) => c.target.startsWith('soak') || c.target.startsWith('failed'))
        .map((c) => [c.target, c]),
    );

  it('passes flat memory over a full-length soak', () => {
    const c = soakChecks(soakRun(300, trend(150, 152, 0.5)));
    expect(c['soak: RSS floor slope after warm-up (MiB/min)']).toMatchObject({ value: 0.5, ok: true });
    expect(c['soak: RSS floor at end / at start']!.ok).toBe(true);
    expect(c['soak: RSS floor at end / at start']!.value).toBeCloseTo(152 / 150);
    expect(c['soak: RSS floor slope after warm-up (MiB/min)']!.unjudged).toBeUndefined();
  });

  it('fails a steady climb, and an end more than 10% above the start', () => {
    const climbing = soakChecks(soakRun(300, trend(150, 160, 2.5)));
    expect(climbing['soak: RSS floor slope after warm-up (MiB/min)']!.ok).toBe(false);
    expect(climbing['soak: RSS floor at end / at start']!.ok).toBe(true);
    const stepped = soakChecks(soakRun(300, trend(150, 170, 1)));
    expect(stepped['soak: RSS floor slope after warm-up (MiB/min)']!.ok).toBe(true);
    expect(stepped['soak: RSS floor at end / at start']!.ok).toBe(false);
  });

  it('does not pass a soak shorter than five minutes, however flat: too short to judge', () => {
    const c = soakChecks(soakRun(20, trend(150, 150, 0)));
    for (const name of [
      'soak: RSS floor slope after warm-up (MiB/min)',
      'soak: RSS floor at end / at start',
    ]) {
      expect(c[name]!.ok).toBe(false);
      expect(c[name]!.unjudged).toMatch(/too short to judge/);
    }
    const table = targetsTable(evaluateTargets(withSoak(soakRun(20, trend(150, 150, 0)))));
    const row = table.split('\n').find((l) => l.includes('RSS floor slope'))!;
    expect(row).toContain('too short to judge (20 s of 300 s)');
    expect(row).not.toMatch(/\| pass \||\| FAIL \|/);
  });

  it('counts the soak failures with the gateway failures', () => {
    const c = soakChecks(soakRun(300, trend(150, 150, 0), 3));
    expect(c['failed requests through the gateway']).toMatchObject({ value: 3, ok: false });
  });

  it('prints start, end, max and slope in its own table', () => {
    const text = soakTable('sqlite', soakRun(300, trend(150.2, 151.4, 0.36)));
    expect(text).toContain('300 s of steady load');
    const cells = (label: string) =>
      text
        .split('\n')
        .find((l) => l.startsWith(`| ${label} `))!
        .split('|')
        .map((c) => c.trim())[2];
    expect(cells('RSS at start MiB')).toBe('150.2');
    expect(cells('RSS at end MiB')).toBe('151.4');
    expect(cells('RSS max MiB')).toBe('156.4');
    expect(cells('RSS slope MiB/min')).toBe('0.36');
    expect(cells('RSS floors MiB, per 60 s')).toBe('150, 151, 151, 151');
    expect(cells('RSS slope of all samples MiB/min')).toBe('1.36');
  });

  it('leaves the soak targets out of a variant without a soak', () => {
    expect(evaluateTargets(variant).some((c) => c.target.startsWith('soak'))).toBe(false);
  });
});

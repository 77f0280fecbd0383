import { SOAK_TARGET_S } from '../run-options.js';
import type {
  BenchResults,
  LoadResult,
  SlowBaselines,
  SoakResult,
  TargetCheck,
  TargetResult,
  VariantResult,
} from './results.js';

// The printed report: one Markdown table per gateway variant (it pastes into the README as is),
// then the issue's targets with their verdicts.

/** A Markdown table; numbers are expected right-aligned, so every column but the first is. */
export function renderTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length), 3));
  const cell = (text: string, i: number) => (i === 0 ? text.padEnd(widths[i]!) : text.padStart(widths[i]!));
  const line = (cells: readonly string[]) =>
    `| ${headers.map((_, i) => cell(cells[i] ?? '', i)).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (i === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`)).join(' | ')} |`;
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

/** A measured value for the table: `-` when it was not measured. */
export function formatValue(value: number | undefined, decimals: number): string {
  if (value === undefined || Number.isNaN(value)) return '-';
  return value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

/** `value / reference` as `0.87x`; `-` when either is missing or the reference is zero. */
export function formatRatio(value: number | undefined, reference: number | undefined): string {
  if (value === undefined || reference === undefined || !Number.isFinite(value) || !(reference > 0))
    return '-';
  return `${(value / reference).toFixed(2)}x`;
}

interface MetricDef {
  label: string;
  decimals: number;
  pick: (t: TargetResult) => number | undefined;
  /** Whether a direct call has this figure (memory and loop delay belong to a proxy process). */
  direct: boolean;
  /** A row only where the gateway has the figure (the balancer in front of two nodes). */
  optional?: boolean;
}

const metric = (label: string, decimals: number, pick: MetricDef['pick'], direct = true): MetricDef => ({
  label,
  decimals,
  pick,
  direct,
});

const METRICS: readonly MetricDef[] = [
  metric('chat req/s, 64 conn', 0, (t) => t.json64?.rps),
  metric('chat p50 ms, 64 conn', 2, (t) => t.json64?.p50Ms),
  metric('chat p99 ms, 64 conn', 2, (t) => t.json64?.p99Ms),
  metric('chat CPU us/request', 0, (t) => t.json64?.proxyCpuUsPerRequest, false),
  metric('chat database CPU us/request', 0, (t) => t.json64?.databaseCpuUsPerRequest, false),
  {
    ...metric('chat balancer CPU us/request', 0, (t) => t.json64?.balancerCpuUsPerRequest, false),
    optional: true,
  },
  metric('chat loop delay p99 ms', 1, (t) => t.json64?.proxyLoopDelay?.p99Ms, false),
  metric('chat settle backlog s', 2, (t) => t.json64?.backlogS, false),
  metric('chat p50 ms, 1 conn', 3, (t) => t.json1?.p50Ms),
  metric('chat p99 ms, 1 conn', 3, (t) => t.json1?.p99Ms),
  metric('chat CPU us/request, 1 conn', 0, (t) => t.json1?.proxyCpuUsPerRequest, false),
  metric('chat database CPU us/request, 1 conn', 0, (t) => t.json1?.databaseCpuUsPerRequest, false),
  metric('stream req/s, 64 conn', 0, (t) => t.stream64?.rps),
  metric('stream chunks/s, 64 conn', 0, (t) => t.stream64?.chunksPerSec),
  metric('stream CPU us/request', 0, (t) => t.stream64?.proxyCpuUsPerRequest, false),
  metric('stream database CPU us/request', 0, (t) => t.stream64?.databaseCpuUsPerRequest, false),
  {
    ...metric('stream balancer CPU us/request', 0, (t) => t.stream64?.balancerCpuUsPerRequest, false),
    optional: true,
  },
  metric('stream loop delay p99 ms', 1, (t) => t.stream64?.proxyLoopDelay?.p99Ms, false),
  metric('stream settle backlog s', 2, (t) => t.stream64?.backlogS, false),
  metric('stream TTFB p50 ms, 1 conn', 3, (t) => t.ttfb?.p50Ms),
  metric('stream TTFB p99 ms, 1 conn', 3, (t) => t.ttfb?.p99Ms),
  metric('1000 streams: flowing', 0, (t) => t.slow?.flowingMean),
  metric('1000 streams: TTFB p99 ms', 1, (t) => t.slow?.ttfbP99Ms),
  metric('1000 streams: RSS MiB', 0, (t) => t.slow?.rssPeakMb, false),
  metric('1000 streams: loop p99 ms', 1, (t) => t.slow?.loopDelay?.p99Ms, false),
  metric('1000 streams: probe p99 ms', 2, (t) => t.slow?.probe?.loadP99Ms, false),
];

/**
 * The three targets of a variant as table columns: the slow-stream baselines join direct and bare,
 * when the gateway ran that phase too.
 */
function columns(v: VariantResult, baselines: SlowBaselines | undefined) {
  const slow = v.gateway.slow ? baselines : undefined;
  return {
    direct: { ...v.direct, ...(slow ? { slow: slow.direct } : {}) },
    bare: { ...v.bare, ...(slow ? { slow: slow.bare } : {}) },
    gateway: v.gateway,
  };
}

/**
 * The comparison table of one gateway variant against the direct and bare-proxy baselines; with
 * --compare-node, the second gateway's column and its ratio to the bare proxy follow.
 */
export function comparisonTable(v: VariantResult, slow?: SlowBaselines): string {
  const { direct, bare, gateway } = columns(v, slow);
  const on = (node: string | undefined) => (node ? `, Node ${node}` : '');
  const headers = [
    'metric',
    'direct',
    'bare proxy',
    `gateway (${v.variant}${on(v.node)})`,
    'gw/direct',
    'gw/bare',
  ];
  // The second gateway column: another Node or build, or the two-node variant's one node alone.
  // Two nodes read as a multiple of one node (gw/one); another build as a multiple of this one.
  const other = v.compare
    ? {
        headers: [`gateway (${v.variant}${on(v.compare.node)})`, 'gw2/bare', 'gw2/gw'],
        gateway: v.compare.gateway,
      }
    : v.oneNode
      ? { headers: [`one node${on(v.node)}`, 'one/bare', 'gw/one'], gateway: v.oneNode, twoOverOne: true }
      : undefined;
  if (other) headers.push(...other.headers);
  const metrics = METRICS.filter((m) => !m.optional || m.pick(gateway) !== undefined);
  const rows = metrics.map((m) => {
    const d = m.direct ? m.pick(direct) : undefined;
    const b = m.pick(bare);
    const g = m.pick(gateway);
    const row = [
      m.label,
      formatValue(d, m.decimals),
      formatValue(b, m.decimals),
      formatValue(g, m.decimals),
      formatRatio(g, d),
      formatRatio(g, b),
    ];
    if (other) {
      const g2 = m.pick(other.gateway);
      row.push(
        formatValue(g2, m.decimals),
        formatRatio(g2, b),
        other.twoOverOne ? formatRatio(g, g2) : formatRatio(g2, g),
      );
    }
    return row;
  });
  return renderTable(headers, rows);
}

const ADDED_LATENCY_LIMIT_MS = 0.3;
const RSS_LIMIT_MB = 250;
/**
 * "Memory flat over a 5-minute soak", in numbers, on the RSS floors (the lowest level held 10 s of
 * each minute after the warm-up, under the collector's saw-tooth). 2 MiB a minute is 6 MiB between the
 * first and the last floor, a few times the floors' own sampling noise, while at the soak's 500-800
 * requests/s a leak of 45-70 bytes per request reaches it. The last floor may sit at most 10% above
 * the first, which catches a step the fitted line smooths over.
 */
export const SOAK_SLOPE_LIMIT_MB_PER_MIN = 2;
export const SOAK_END_VS_START_LIMIT = 1.1;

const diff = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined ? undefined : a - b;
const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || !(b > 0) ? undefined : a / b;

/**
 * The issue's targets for one variant, each with the measured value and a verdict. Latency at one
 * connection: on SQLite, the gateway as installed, what it adds to a direct call; on a database
 * server, what it adds to the bare proxy of the same rounds (two behind the balancer for two nodes),
 * whose own hop is a proxy's cost, not the gateway's. Both at most 0.3 ms.
 */
export function evaluateTargets(v: VariantResult): TargetCheck[] {
  const { bare, gateway } = v;
  const checks: TargetCheck[] = [];
  const add = (
    target: string,
    value: number | undefined,
    limit: string,
    ok: (x: number) => boolean,
    unjudged?: string,
  ) => {
    const known = value !== undefined && Number.isFinite(value);
    checks.push({
      variant: v.variant,
      target,
      value: known ? value : null,
      limit,
      ok: !unjudged && known && ok(value),
      ...(unjudged ? { unjudged } : {}),
    });
  };
  const latency = (x: number) => x <= ADDED_LATENCY_LIMIT_MS;
  const [over, base] = v.variant === 'sqlite' ? ['direct', v.direct] : ['bare proxy', bare];
  add(
    `added p50 latency over ${over}, chat, 1 conn (ms)`,
    diff(gateway.json1?.p50Ms, base.json1?.p50Ms),
    '<= 0.3',
    latency,
  );
  add(
    `added p50 TTFB over ${over}, stream, 1 conn (ms)`,
    diff(gateway.ttfb?.p50Ms, base.ttfb?.p50Ms),
    '<= 0.3',
    latency,
  );
  // A shared database server costs more per call than a file: the many-nodes issue's goals.
  const floor = v.variant === 'mysql' ? 0.7 : v.variant === 'sqlite' ? 1 : 0.8;
  add(
    'chat throughput vs bare proxy',
    ratio(gateway.json64?.rps, bare.json64?.rps),
    `>= ${floor.toFixed(2)}`,
    (x) => x >= floor,
  );
  add(
    'stream throughput vs bare proxy',
    ratio(gateway.stream64?.rps, bare.stream64?.rps),
    `>= ${floor.toFixed(2)}`,
    (x) => x >= floor,
  );
  if (v.variant === 'postgres+redis-2nodes') {
    // Two nodes must not cost more per request than one: the gateways and the database together
    // (Redis counts with the database; the balancer in front is the test's, not the gateway's).
    const perRequest = (r: LoadResult | undefined) =>
      r?.proxyCpuUsPerRequest === undefined
        ? undefined
        : r.proxyCpuUsPerRequest + (r.databaseCpuUsPerRequest ?? 0);
    const oneNode = v.oneNode;
    const missing = oneNode ? undefined : 'one node not measured in the same rounds';
    for (const [phase, pick] of [
      ['chat', (t: TargetResult) => t.json64],
      ['stream', (t: TargetResult) => t.stream64],
    ] as const)
      add(
        `gateways + database CPU per ${phase} request vs one node`,
        oneNode ? ratio(perRequest(pick(gateway)), perRequest(pick(oneNode))) : undefined,
        '<= 1.00',
        (x) => x <= 1,
        missing,
      );
  }
  // Memory with 1000 streams means something only if the 1000 streams were all being served.
  const streams = gateway.slow?.streams ?? 0;
  const noSlowPhase = v.plan?.slowStreamPhase === false ? 'not run in the short server plan' : undefined;
  add(
    'streams flowing of 1000 concurrent',
    gateway.slow?.flowingMean,
    '>= 950',
    (x) => x >= streams * 0.95,
    noSlowPhase,
  );
  add(
    'RSS with 1000 streams (MiB)',
    gateway.slow?.rssPeakMb,
    '<= 250',
    (x) => x <= RSS_LIMIT_MB,
    noSlowPhase,
  );
  const soak = gateway.soak;
  if (soak) {
    const short =
      soak.durationS < SOAK_TARGET_S
        ? `too short to judge (${soak.durationS} s of ${SOAK_TARGET_S} s)`
        : undefined;
    add(
      'soak: RSS floor slope after warm-up (MiB/min)',
      soak.rss.slopeMbPerMin,
      `<= ${SOAK_SLOPE_LIMIT_MB_PER_MIN}`,
      (x) => x <= SOAK_SLOPE_LIMIT_MB_PER_MIN,
      short,
    );
    add(
      'soak: RSS floor at end / at start',
      ratio(soak.rss.endMb, soak.rss.startMb),
      `<= ${SOAK_END_VS_START_LIMIT.toFixed(2)}`,
      (x) => x <= SOAK_END_VS_START_LIMIT,
      short,
    );
  }
  const lost = v.accounting.length === 0 ? undefined : v.accounting.filter((a) => !a.ok).length;
  add('phases with lost or extra log rows / quota', lost, '= 0', (x) => x === 0);
  const failed = [gateway.json64, gateway.json1, gateway.stream64, soak?.chat, soak?.stream].reduce(
    (n, r) => n + (r ? r.non2xx + r.errors : 0),
    (gateway.slow?.failed ?? 0) + (gateway.ttfb?.badStreams ?? 0),
  );
  add('failed requests through the gateway', failed, '= 0', (x) => x === 0);
  return checks;
}

export function targetsTable(checks: readonly TargetCheck[]): string {
  const rows = checks.map((c) => [
    `${c.target} [${c.variant}]`,
    c.value === null
      ? '-'
      : formatValue(c.value, Number.isInteger(c.value) ? 0 : Math.abs(c.value) < 10 ? 3 : 1),
    c.limit,
    c.unjudged ?? (c.ok ? 'pass' : 'FAIL'),
  ]);
  return renderTable(['target', 'measured', 'goal', 'verdict'], rows);
}

/** The soak of one variant: load, memory at the start and the end of the judged window, trend. */
export function soakTable(variant: string, s: SoakResult): string {
  const row = (label: string, value: number, decimals: number) => [label, formatValue(value, decimals)];
  const floors = (mb: readonly number[]) => mb.map((v) => formatValue(v, 0)).join(', ') || '-';
  const per = `per ${s.floorWindowS} s`;
  const about =
    `soak [${variant}]: ${s.durationS} s of steady load on a fresh gateway process, ${s.connections} connections ` +
    `each pausing ${s.pauseMs} ms after a reply, chat and streams in turns of ${s.segmentS} s. ` +
    `The first ${s.warmupS} s are warm-up. A floor is the lowest level of a window (${s.floorWindowS} s) after it ` +
    `that memory held for ${s.floorHoldS} s: the level it falls back to after a collection. Start, end and slope ` +
    'are the floors; the lowest single samples are shown beside them.';
  const table = renderTable(
    ['soak', `gateway (${variant})`],
    [
      row('requests/s', s.rps, 0),
      [`RSS floors MiB, ${per}`, floors(s.rss.floorsMb)],
      [`RSS lowest samples MiB, ${per}`, floors(s.rss.lowestMb)],
      row('RSS at start MiB', s.rss.startMb, 1),
      row('RSS at end MiB', s.rss.endMb, 1),
      row('RSS max MiB', s.rss.maxMb, 1),
      row('RSS slope MiB/min', s.rss.slopeMbPerMin, 2),
      row('RSS slope bytes/request', s.rssSlopeBytesPerRequest, 1),
      row('RSS slope of all samples MiB/min', s.rss.sampleSlopeMbPerMin, 2),
      [`heap used floors MiB, ${per}`, floors(s.heapUsed.floorsMb)],
      row('heap used slope MiB/min', s.heapUsed.slopeMbPerMin, 2),
      row('heap used max MiB', s.heapUsed.maxMb, 1),
      row('loop delay p99 ms', s.loopDelay.p99Ms, 1),
    ],
  );
  return `${about}\n\n${table}`;
}

/** The two-node variant's control in one line, or undefined when a figure is missing. */
export function bareSplitNote(split: NonNullable<VariantResult['bareSplit']>): string | undefined {
  const one = split.one.json64?.proxyCpuUsPerRequest;
  const two = split.two.json64?.proxyCpuUsPerRequest;
  if (one === undefined || two === undefined || one === 0) return undefined;
  return (
    `two bare proxies behind nginx used ${two} us of CPU per chat request against one bare proxy's ${one} ` +
    `(${(two / one).toFixed(2)}x; nginx ${split.two.json64?.balancerCpuUsPerRequest ?? '-'} us of its own): ` +
    'what splitting the load over two processes costs on this machine, with nothing shared'
  );
}

/** The whole printed report. */
export function renderReport(results: BenchResults): string {
  const parts: string[] = [];
  const m = results.machine;
  parts.push(
    `Switchyard benchmark (${results.mode}) ${results.generatedAt}\n` +
      `${m.cpus} x ${m.cpuModel}, ${m.memoryGb} GB, Node ${m.node}, ${m.os}\n` +
      `upstream: ${results.tools.upstream}; load: ${results.tools.load}; one-connection latency: ${results.tools.latency}\n` +
      `other processes used ${m.othersCpuPercent.during}% of the CPU during the run (${m.othersCpuPercent.before}% just before)`,
  );
  for (const g of results.variants) {
    const notes: string[] = [];
    if (g.log && g.log.warnings + g.log.errors > 0) {
      const top = g.log.messages.map((m) => `${m.count} x ${m.msg}`).join('; ');
      notes.push(`gateway log [${g.variant}]: ${g.log.warnings} warnings, ${g.log.errors} errors: ${top}`);
    }
    for (const a of g.accounting) {
      const verdict = a.ok ? 'ok' : `LOST: ${a.problems.join('; ')}`;
      notes.push(
        `accounting [${g.variant}] ${a.phase}: ${a.upstreamRequests} upstream requests, ${a.logRows} log rows, ${a.quotaCharged} quota charged` +
          `${a.abandonedCalls ? `, ${a.abandonedCalls} calls abandoned by their clients (not billed)` : ''}: ${verdict}`,
      );
    }
    const split = g.bareSplit && bareSplitNote(g.bareSplit);
    if (split) notes.push(`control [${g.variant}]: ${split}`);
    parts.push([comparisonTable(g, results.slowBaselines), '', ...notes].join('\n'));
    if (g.gateway.soak) parts.push(soakTable(g.variant, g.gateway.soak));
  }
  if (results.targets.length > 0) parts.push(targetsTable(results.targets));
  if (results.skipped.length > 0) parts.push(results.skipped.map((s) => `note: ${s}`).join('\n'));
  return `${parts.join('\n\n')}\n`;
}

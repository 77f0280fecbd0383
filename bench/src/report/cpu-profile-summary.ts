// Where a process spent its CPU time, from a V8 .cpuprofile (node --cpu-prof): self time per
// function and per area (a package, a folder of the server, Node internals). Input for the speed
// work; a flame graph viewer shows the same file in full.

export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }[];
  samples: number[];
  timeDeltas: number[];
}

export interface HotSpot {
  name: string;
  selfMs: number;
  share: number;
}

/** Which area a script URL belongs to: `fastify`, `server/relay`, `node:internal`, `(gc)`, ... */
export function areaOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node:internal';
  const last = url.lastIndexOf('node_modules/');
  if (last !== -1) {
    const pkg = /^((?:@[^/]+\/)?[^/]+)/.exec(url.slice(last + 'node_modules/'.length));
    return pkg?.[1] ?? 'node_modules';
  }
  const own = /\/(server|domain)\/dist\/(?:([^/]+)\/)?/.exec(url);
  if (own) return own[2] ? `${own[1]}/${own[2]}` : (own[1] as string);
  return url.replace(/^file:\/\//, '');
}

function selfTimes(profile: CpuProfile): Map<number, number> {
  const self = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  return self;
}

function top(totals: Map<string, number>, all: number, n: number): HotSpot[] {
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => ({
      name,
      selfMs: Math.round(us / 100) / 10,
      share: all > 0 ? Math.round((1000 * us) / all) / 10 : 0,
    }));
}

/** The `n` functions and areas with the most self time; idle time (the event loop waiting) is left out. */
export function summarizeProfile(
  profile: CpuProfile,
  n = 20,
): { functions: HotSpot[]; areas: HotSpot[]; busyMs: number } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map<string, number>();
  const areas = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfTimes(profile)) {
    const node = byId.get(id);
    if (!node) continue;
    const f = node.callFrame;
    if (f.functionName === '(idle)' || f.functionName === '(program)') continue;
    busy += us;
    const file = f.url.replace(/^file:\/\//, '').replace(/^.*\/(node_modules|server|domain)\//, '$1/');
    const fn = `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
    functions.set(fn, (functions.get(fn) ?? 0) + us);
    const area = areaOf(f.url, f.functionName);
    areas.set(area, (areas.get(area) ?? 0) + us);
  }
  return { functions: top(functions, busy, n), areas: top(areas, busy, n), busyMs: Math.round(busy / 1000) };
}

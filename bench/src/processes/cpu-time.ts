import { readdirSync, readFileSync } from 'node:fs';

// CPU time from /proc, in clock ticks (USER_HZ, 100 per second on Linux). Two uses: the CPU a
// proxy spends per request (robust when other work shares the machine), and how much of the
// machine other processes took during the run (the noise in every other figure).

export const TICKS_PER_SECOND = 100;

export interface MachineTicks {
  busy: number;
  total: number;
}

/** The aggregate `cpu` line of /proc/stat: busy = total - idle - iowait (guest time is inside user). */
export function parseProcStat(text: string): MachineTicks {
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) throw new Error('no cpu line in /proc/stat');
  const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  const idle = (f[3] ?? 0) + (f[4] ?? 0);
  return { busy: total - idle, total };
}

/**
 * utime + stime of /proc/<pid>/stat, plus cutime + cstime (children waited for) when asked. The
 * command name in parentheses may hold spaces, so fields are counted after its closing parenthesis.
 */
export function parsePidStat(text: string, withChildren: boolean): number {
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state); utime is field 14, stime 15, cutime 16, cstime 17.
  const field = (n: number) => Number(rest[n - 3] ?? 0);
  return field(14) + field(15) + (withChildren ? field(16) + field(17) : 0);
}

/**
 * CPU ticks of every process whose command name is one of `names` (a database server's backends:
 * `postgres`, `mariadbd`): read before and after a round, the difference is the database's work.
 * The server is shared with whatever else uses it, which this cannot tell apart.
 */
export function namedProcessesTicks(names: readonly string[]): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (names.includes(comm)) ticks += parsePidStat(stat, false);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return ticks;
}

export function machineTicks(): MachineTicks {
  return parseProcStat(readFileSync('/proc/stat', 'utf8'));
}

export function processTicks(pid: number | 'self', withChildren = false): number {
  return parsePidStat(readFileSync(`/proc/${pid}/stat`, 'utf8'), withChildren);
}

/** Share (0..1) of the whole machine used by processes other than this one and its children. */
export function othersShare(
  before: { machine: MachineTicks; own: number },
  after: { machine: MachineTicks; own: number },
): number {
  const total = after.machine.total - before.machine.total;
  if (total <= 0) return 0;
  const others = after.machine.busy - before.machine.busy - (after.own - before.own);
  return Math.max(0, others / total);
}

/** `processTicks` of `pid` and of every process below it (nginx's master and its workers). */
export function processTreeTicks(pid: number): number {
  let ticks = 0;
  const pending = [pid];
  while (pending.length > 0) {
    const next = pending.pop()!;
    try {
      ticks += processTicks(next);
      for (const task of readdirSync(`/proc/${next}/task`))
        for (const child of readFileSync(`/proc/${next}/task/${task}/children`, 'utf8').split(' '))
          if (child.trim() !== '') pending.push(Number(child));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return ticks;
}

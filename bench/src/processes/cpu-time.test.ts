import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { othersShare, parsePidStat, parseProcStat, processTicks, processTreeTicks } from './cpu-time.js';

describe('parseProcStat', () => {
  it('counts idle and iowait as not busy, and ignores the per-CPU lines', () => {
    const text = 'cpu  100 5 50 800 20 3 2 0 0 0\ncpu0 50 2 25 400 10 1 1 0 0 0\nintr 12345\n';
    expect(parseProcStat(text)).toEqual({ busy: 160, total: 980 });
  });
});

describe('parsePidStat', () => {
  // Fields: pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime ...
  const line = '4242 (node main.js) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 50 30 20 20 0 11 0';

  it('adds user and system time, reading past a command name with spaces', () => {
    expect(parsePidStat(line, false)).toBe(300);
  });

  it('adds the time of waited-for children when asked', () => {
    expect(parsePidStat(line, true)).toBe(350);
  });
});

describe('othersShare', () => {
  it('is the busy time of the machine not spent by this process tree, over all CPU time', () => {
    const before = { machine: { busy: 1000, total: 4000 }, own: 100 };
    const after = { machine: { busy: 1150, total: 4200 }, own: 200 };
    expect(othersShare(before, after)).toBeCloseTo(0.25);
  });

  it('never goes below zero (tick rounding)', () => {
    const before = { machine: { busy: 0, total: 0 }, own: 0 };
    expect(othersShare(before, { machine: { busy: 10, total: 100 }, own: 12 })).toBe(0);
  });
});

describe('processTreeTicks', () => {
  it('counts the CPU of the processes a process started, as nginx its workers', async () => {
    // A shell that starts a child and waits: the child spends 0.4 s of CPU (however long that takes
    // on a busy machine), says so, and idles; the shell's own ticks stay near zero.
    const busy = `while (process.cpuUsage().user < 400000); console.log('spent'); setTimeout(() => {}, 10000);`;
    const shell = spawn('sh', ['-c', `"${process.execPath}" -e "${busy}" & wait`], {
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: true,
    });
    try {
      await new Promise<void>((resolve) => shell.stdout!.on('data', () => resolve()));
      expect(processTicks(shell.pid!)).toBeLessThan(10);
      expect(processTreeTicks(shell.pid!)).toBeGreaterThanOrEqual(40);
    } finally {
      process.kill(-shell.pid!, 'SIGKILL'); // the shell and its child
    }
  });
});

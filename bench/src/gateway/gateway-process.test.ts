import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRelayCounters, startScriptNodeFlags } from './gateway-process.js';

describe('startScriptNodeFlags', () => {
  const dirs: string[] = [];
  const repoWithStart = (start: string) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'start-script-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ scripts: { start } }));
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('reads the options between node and the gateway script of the last command', () => {
    const repo = repoWithStart('npm run build && node --a=1 --b server/dist/main.js');
    expect(startScriptNodeFlags(repo)).toEqual(['--a=1', '--b']);
    expect(startScriptNodeFlags(repoWithStart('node server/dist/main.js'))).toEqual([]);
  });

  it('refuses a start script that does not run the gateway with node', () => {
    expect(() => startScriptNodeFlags(repoWithStart('tsx server/src/main.ts'))).toThrow(/start script/);
    expect(() => startScriptNodeFlags(repoWithStart('node server/dist/main.js --port 1'))).toThrow(
      /start script/,
    );
  });

  it('finds the garbage collector options in this repository start script', () => {
    const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..');
    expect(startScriptNodeFlags(repoRoot)).toEqual([
      '--min-semi-space-size=16',
      '--max-semi-space-size=16',
      '--no-allocation-site-pretenuring',
    ]);
  });
});

describe('parseRelayCounters', () => {
  it('sums the 499 answers over routes, models and channels, and reads the pending settlements', () => {
    const text = [
      '# HELP switchyard_relay_requests_total Relay calls answered',
      '# TYPE switchyard_relay_requests_total counter',
      'switchyard_relay_requests_total{route="/v1/chat/completions",model="",channel="0",status="499"} 3',
      'switchyard_relay_requests_total{route="/v1/chat/completions",model="gpt-4o",channel="4",status="200"} 1200',
      'switchyard_relay_requests_total{route="/v1/messages",model="",channel="0",status="499"} 2',
      'switchyard_settlements_pending 7',
      'switchyard_settlements_pending_other 9',
    ].join('\n');
    expect(parseRelayCounters(text)).toEqual({ abandoned: 5, pending: 7 });
    expect(parseRelayCounters('')).toEqual({ abandoned: 0, pending: 0 });
  });
});

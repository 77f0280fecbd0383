import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { RequestLog } from './request-log.js';

function appLog(level: string) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { log: Fastify({ logger: { level, stream: sink } }).log, lines };
}

describe('RequestLog', () => {
  it('writes lines bound to the request id, at the levels the app logs', () => {
    const { log, lines } = appLog('warn');
    const r = new RequestLog(log, 'req-1');
    r.info('not at this level');
    r.warn({ channel: 3 }, 'upstream attempt failed: %s', 'timeout');
    r.error('plain %d', 7);
    expect(lines.map(({ level, reqId, channel, msg }) => ({ level, reqId, channel, msg }))).toEqual([
      { level: 40, reqId: 'req-1', channel: 3, msg: 'upstream attempt failed: timeout' },
      { level: 50, reqId: 'req-1', channel: undefined, msg: 'plain 7' },
    ]);
    expect(r.level).toBe('warn');
    r.child({ part: 'x' }).warn('from a child');
    expect(lines.at(-1)).toMatchObject({ reqId: 'req-1', part: 'x', msg: 'from a child' });
  });

  it('makes the bound child for the first line only, and none for a call that logs nothing', () => {
    const { log } = appLog('warn');
    const child = vi.spyOn(log, 'child');
    const quiet = new RequestLog(log, 'req-2');
    expect(quiet.level).toBe('warn');
    expect(child).not.toHaveBeenCalled();
    const loud = new RequestLog(log, 'req-3');
    loud.warn('one');
    loud.error('two');
    expect(child).toHaveBeenCalledTimes(1);
    expect(child).toHaveBeenCalledWith({ reqId: 'req-3' });
  });

  it('changes the level of its own lines only', () => {
    const { log, lines } = appLog('warn');
    const r = new RequestLog(log, 'req-4');
    r.level = 'info';
    r.info('now written');
    log.info('the app still at warn');
    expect(lines.map((l) => l.msg)).toEqual(['now written']);
  });
});

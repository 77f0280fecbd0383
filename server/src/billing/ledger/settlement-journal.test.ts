import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LogType } from '@switchyard/domain';
import { afterEach, describe, expect, it } from 'vitest';
import { SettlementJournal } from './settlement-journal.js';

const entry = (userId: number) => ({
  ref: userId % 2 === 0 ? `boot.${userId}` : undefined,
  userId,
  tokenId: 7,
  tokenUnlimited: false,
  amount: 100,
  finalQuota: 60,
  recordLog: true,
  log: {
    user_id: userId,
    created_at: 1,
    type: LogType.Consume,
    content: '',
    username: 'u',
    token_id: 7,
    token_name: 't',
    model_name: 'gpt-4o',
    prompt_tokens: 1,
    completion_tokens: 1,
    channel_id: 1,
    request_time: 1,
    first_response_time: 1,
    is_stream: 0,
    source_ip: '',
    group: 'default',
    metadata: '{}',
  },
});

describe('SettlementJournal', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = mkdtempSync(path.join(tmpdir(), 'journal-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('writes one turn of settlements in one write, and a new run finds those not marked done', async () => {
    const d = dir();
    const j = new SettlementJournal(d);
    expect(j.leftOpen()).toEqual([]);
    j.begin();
    const a = j.append(entry(1));
    const b = j.append(entry(2));
    const c = j.append(entry(3));
    // Nothing is written before the turn's callbacks are done.
    expect(readFileSync(path.join(d, 'settlements.journal'), 'utf8')).toBe('');
    await Promise.resolve();
    expect(readFileSync(path.join(d, 'settlements.journal'), 'utf8').trim().split('\n')).toHaveLength(3);
    j.done(b);
    await Promise.resolve();
    expect(j.pending).toBe(2);
    // The process dies here (no close), a last line half written:
    appendFileSync(path.join(d, 'settlements.journal'), '{"n":4,"userId');
    const open = new SettlementJournal(d).leftOpen();
    expect(open.map((e) => e.n)).toEqual([a, c]);
    expect(open[0]).toMatchObject({ userId: 1, amount: 100, finalQuota: 60, recordLog: true });
    expect(open[0]!.ref).toBeUndefined();
    expect(open[1]).toMatchObject({ userId: 3 });
  });

  it('starts a fresh file once what was left open is settled', async () => {
    const d = dir();
    const first = new SettlementJournal(d);
    first.begin();
    first.append(entry(2));
    first.close();
    const second = new SettlementJournal(d);
    expect(second.leftOpen()).toHaveLength(1);
    expect(second.leftOpen()[0]!.ref).toBe('boot.2');
    second.begin();
    expect(second.leftOpen()).toEqual([]);
    second.close();
  });

  it('rewrites a grown file with the open settlements only', async () => {
    const d = dir();
    const j = new SettlementJournal(d, () => {}, 4096);
    j.begin();
    const kept: number[] = [];
    for (let i = 0; i < 40; i++) {
      const n = j.append(entry(i));
      if (i % 10 === 0) kept.push(n);
      else j.done(n);
      await Promise.resolve();
    }
    const size = readFileSync(path.join(d, 'settlements.journal')).length;
    expect(size).toBeLessThan(4096 + 1024);
    expect(new SettlementJournal(d).leftOpen().map((e) => e.n)).toEqual(kept);
    j.close();
  });
});

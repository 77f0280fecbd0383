import { describe, expect, it } from 'vitest';
import { LOG_COLUMNS, type LogRow, type LogValues } from './consume-log-row.js';
import {
  type ReplyVisitor,
  ReplyWriter,
  RequestReader,
  type RequestVisitor,
  RequestWriter,
  readReplies,
  type WireRequests,
} from './ledger-wire.js';
import type { HeldQuota } from './sqlite-ledger-core.js';

type Seen = ['settle', number, HeldQuota, number, LogRow, boolean] | ['flush' | 'close', number];

function recorder(): { seen: Seen[]; visit: RequestVisitor } {
  const seen: Seen[] = [];
  return {
    seen,
    visit: {
      settle: (id, held, finalQuota, log, recordLog) =>
        seen.push(['settle', id, held, finalQuota, log, recordLog]),
      flush: (id) => seen.push(['flush', id]),
      close: (id) => seen.push(['close', id]),
    },
  };
}

/** What the thread receives: a structured clone, as postMessage makes. */
function post(writer: RequestWriter): WireRequests {
  const out = writer.take();
  if (!out) throw new Error('nothing written');
  return structuredClone(out);
}

const log = (over: LogValues = {}): LogValues => ({
  user_id: 7,
  created_at: 1_763_900_000,
  type: 2,
  content: '',
  username: 'alice',
  token_id: 70,
  token_name: 'ci key',
  model_name: 'gpt-4o-mini',
  prompt_tokens: 12,
  completion_tokens: 34,
  channel_id: 3,
  request_time: 250,
  first_response_time: 40,
  is_stream: 1,
  source_ip: '10.0.0.1',
  group: 'default',
  metadata: '{"group_ratio":1}',
  ...over,
});

// In LOG_COLUMNS order, quota (0) included.
const row = (over: Record<string, string | number | null> = {}): LogRow => {
  const values = { ...log(), quota: 0, ...over } as Record<string, string | number | null>;
  return LOG_COLUMNS.map((c) => values[c] ?? null);
};

const held: HeldQuota = { userId: 7, tokenId: 70, tokenUnlimited: false, amount: 1500 };
const unlimited: HeldQuota = { userId: 8, tokenId: 80, tokenUnlimited: true, amount: 0 };

describe('the ledger wire', () => {
  it("carries each settlement's journal number (0 when none)", () => {
    const writer = new RequestWriter();
    writer.settle(1, held, 10, log(), true, 41);
    writer.settle(2, held, 10, log(), true);
    const seqs: number[] = [];
    new RequestReader().read(post(writer), {
      settle: (_id, _held, _final, _log, _record, journalSeq) => seqs.push(journalSeq),
      flush: () => {},
      close: () => {},
    });
    expect(seqs).toEqual([41, 0]);
  });

  it('carries every kind of request, in order, with its values', () => {
    const writer = new RequestWriter();
    writer.settle(2, held, 1800, log(), true);
    writer.settle(4, unlimited, 0, log({ username: 'bob' }), false);
    writer.flush(5);
    writer.close(6);
    const { seen, visit } = recorder();
    new RequestReader().read(post(writer), visit);
    expect(seen).toEqual([
      ['settle', 2, held, 1800, row(), true],
      ['settle', 4, unlimited, 0, row({ username: 'bob' }), false],
      ['flush', 5],
      ['close', 6],
    ]);
    expect(writer.take()).toBeUndefined();
  });

  it('gives missing columns their defaults, booleans as 1/0 and keeps null as NULL', () => {
    const writer = new RequestWriter();
    const values = log({ content: undefined, prompt_tokens: undefined, is_stream: true, user_id: null });
    writer.settle(1, held, 5, values, true);
    writer.settle(2, held, 5, log({ group: null, metadata: null }), true);
    const { seen, visit } = recorder();
    new RequestReader().read(post(writer), visit);
    expect(seen[0]?.[4]).toEqual(row({ content: '', prompt_tokens: 0, is_stream: 1, user_id: null }));
    expect(seen[1]?.[4]).toEqual(row({ group: null, metadata: null }));
  });

  it('sends a repeated string once, and only the per-row ones again', () => {
    const writer = new RequestWriter();
    const reader = new RequestReader();
    const { seen, visit } = recorder();
    writer.settle(1, held, 1, log(), true);
    writer.settle(2, held, 1, log({ metadata: '{"a":2}' }), true);
    const first = post(writer);
    expect(first.filter((v) => v === 'alice')).toHaveLength(1);
    reader.read(first, visit);
    writer.settle(3, held, 1, log({ source_ip: '10.0.0.2' }), true);
    const second = post(writer);
    expect(second.filter((v) => typeof v === 'string')).toEqual(['', '10.0.0.2', '{"group_ratio":1}']);
    reader.read(second, visit);
    expect(seen.map((s) => s[4])).toEqual([
      row(),
      row({ metadata: '{"a":2}' }),
      row({ source_ip: '10.0.0.2' }),
    ]);
  });

  it('starts the dictionary over between batches once it is full, and still decodes', () => {
    const writer = new RequestWriter({ dictionaryLimit: 3 });
    const reader = new RequestReader();
    const { seen, visit } = recorder();
    writer.settle(1, held, 1, log(), true);
    reader.read(post(writer), visit);
    writer.settle(2, held, 1, log({ username: 'carol' }), true);
    writer.settle(3, held, 1, log({ username: 'carol' }), true);
    const second = post(writer);
    // Strings the old dictionary knew are spelled out again.
    expect(second).toContain('ci key');
    reader.read(second, visit);
    expect(seen.map((s) => s[4])).toEqual([row(), row({ username: 'carol' }), row({ username: 'carol' })]);
  });

  it('lets a new thread read a batch written for the one before it', () => {
    const writer = new RequestWriter();
    const { seen, visit } = recorder();
    writer.settle(1, held, 1, log(), true);
    new RequestReader().read(post(writer), visit);
    // The thread died while the next batch was being written.
    writer.settle(2, held, 1, log(), true);
    writer.resend();
    writer.settle(3, held, 1, log({ model_name: 'o3' }), true);
    const reader = new RequestReader();
    reader.read(post(writer), visit);
    writer.settle(4, held, 1, log({ username: 'dave' }), true);
    reader.read(post(writer), visit);
    writer.settle(5, held, 1, log({ username: 'dave', model_name: 'o3' }), true);
    reader.read(post(writer), visit);
    expect(seen.map((s) => s[4])).toEqual([
      row(),
      row(),
      row({ model_name: 'o3' }),
      row({ username: 'dave' }),
      row({ username: 'dave', model_name: 'o3' }),
    ]);
  });

  it('lets a new thread read the first batch after a dictionary that was full when the old one died', () => {
    const writer = new RequestWriter({ dictionaryLimit: 3 });
    const { seen, visit } = recorder();
    writer.settle(1, held, 1, log(), true);
    new RequestReader().read(post(writer), visit);
    writer.resend();
    writer.settle(2, held, 1, log({ group: 'vip' }), true);
    new RequestReader().read(post(writer), visit);
    expect(seen.map((s) => s[4])).toEqual([row(), row({ group: 'vip' })]);
  });

  it('carries balances, answers and failures back, in order', () => {
    const writer = new ReplyWriter();
    writer.balances({
      users: new Map([
        [7, 8800],
        [8, 0],
      ]),
      tokens: new Map([[70, 1234]]),
    });
    writer.done(1);
    writer.job(4, { ok: true, value: { charged: 1200, refunded: 300, shortfall: 0 } });
    writer.job(5, { ok: false, error: { message: 'NOT NULL constraint failed', code: 'SQLITE_CONSTRAINT' } });
    writer.failed(6, { message: 'database is locked' });
    const out = writer.take()!;
    const got: unknown[] = [];
    const visit: ReplyVisitor = {
      resolve: (id, value) => got.push([id, value]),
      reject: (id, error) => got.push([id, 'failed', error]),
      balance: (kind, id, value) => got.push([kind, id, value]),
    };
    readReplies(structuredClone(out), visit);
    expect(got).toEqual([
      ['user', 7, 8800],
      ['user', 8, 0],
      ['token', 70, 1234],
      [1, null],
      [4, { charged: 1200, refunded: 300, shortfall: 0 }],
      [5, 'failed', { message: 'NOT NULL constraint failed', code: 'SQLITE_CONSTRAINT' }],
      [6, 'failed', { message: 'database is locked' }],
    ]);
    expect(writer.take()).toBeUndefined();
  });
});

import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatisticsRollup } from '../../jobs/statistics-rollup.js';
import { createTestDatabase, engineTargets, type TestDatabase } from '../../test/databases.js';
import { createDb, type Database } from '../create-db.js';
import { migrateToLatest } from '../migrations/index.js';
import type { NewLog } from './logs.js';
import {
  addDays,
  logIdRangeAggregate,
  type StatisticsQueries,
  type StatisticsRow,
  statisticsQueries,
  utcDate,
  utcDayStart,
} from './statistics.js';
import { newUserRow } from './users.js';

const DAY = '2026-03-14';
const START = utcDayStart(DAY);
const DAYS = [addDays(DAY, -1), DAY, addDays(DAY, 1)];
const MODELS = ['gpt-4o', 'claude-3-5-sonnet', 'gemini-2.0-flash', 'deepseek-chat'];

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let x = seed;
  return (n: number) => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    // The high bits: an LCG's low bits repeat with a short period.
    return Math.floor((x / 2_147_483_648) * n);
  };
}

function log(over: Partial<NewLog>): NewLog {
  return {
    user_id: 1,
    created_at: START,
    type: 2,
    content: '',
    username: 'u',
    token_id: 1,
    token_name: 't',
    model_name: 'gpt-4o',
    quota: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    channel_id: 1,
    request_time: 0,
    first_response_time: 0,
    is_stream: 0,
    source_ip: '',
    group: 'default',
    metadata: '{}',
    ...over,
  };
}

/** Consume, top-up, manage and system logs over three days, including each day's first and last second. */
function workload(seed: number, count: number): NewLog[] {
  const r = random(seed);
  const edges = [START - 86_400, START - 1, START, START + 86_399, START + 86_400, START + 2 * 86_400 - 1];
  const rows: NewLog[] = [];
  for (let i = 0; i < count; i++) {
    const created = i < edges.length ? edges[i]! : START - 86_400 + r(3 * 86_400);
    rows.push(
      log({
        created_at: created,
        // Mostly consume logs; the others must not be counted.
        type: r(10) < 7 ? 2 : 1 + r(4),
        user_id: 1 + r(4),
        channel_id: r(4),
        model_name: MODELS[r(MODELS.length)]!,
        quota: r(50_000),
        prompt_tokens: r(4000),
        completion_tokens: r(2000),
        request_time: r(30_000),
      }),
    );
  }
  return rows;
}

/** What the rollup must contain: the consume logs summed by UTC day, user, channel and model. */
function expected(logs: readonly NewLog[]): StatisticsRow[] {
  const groups = new Map<string, StatisticsRow>();
  for (const l of logs) {
    if (l.type !== 2) continue;
    const date = utcDate(l.created_at);
    const key = [date, l.user_id, l.channel_id, l.model_name].join('|');
    let g = groups.get(key);
    if (!g) {
      g = {
        date,
        user_id: l.user_id,
        channel_id: l.channel_id ?? 0,
        model_name: l.model_name ?? '',
        request_count: 0,
        quota: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
        request_time: 0,
      };
      groups.set(key, g);
    }
    g.request_count++;
    g.quota += l.quota ?? 0;
    g.prompt_tokens += l.prompt_tokens ?? 0;
    g.completion_tokens += l.completion_tokens ?? 0;
    g.request_time += l.request_time ?? 0;
  }
  return [...groups.values()].sort(
    (a, b) =>
      a.date.localeCompare(b.date) ||
      a.user_id - b.user_id ||
      a.channel_id - b.channel_id ||
      a.model_name.localeCompare(b.model_name),
  );
}

describe('UTC day helpers', () => {
  it('turn unix seconds into dates and back', () => {
    expect(utcDate(START)).toBe(DAY);
    expect(utcDate(START - 1)).toBe('2026-03-13');
    expect(utcDate(START + 86_399)).toBe(DAY);
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(addDays('2024-12-31', 1)).toBe('2025-01-01');
    expect(() => utcDayStart('2026-3-1')).toThrow();
  });
});

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`statistics rollup on ${target.engine}`, () => {
    let testDb: TestDatabase;
    let d: Database;
    let q: StatisticsQueries;
    const inserted: NewLog[] = [];

    const insertLogs = async (rows: NewLog[]) => {
      for (let i = 0; i < rows.length; i += 200)
        await d.db
          .insertInto('logs')
          .values(rows.slice(i, i + 200))
          .execute();
      inserted.push(...rows);
    };
    const rollup = async () => {
      for (const day of DAYS) await q.rollupDay(day);
    };
    const rows = () => q.rows({ from: DAYS[0]!, to: DAYS[2]! });

    beforeAll(async () => {
      testDb = await createTestDatabase(target);
      d = createDb(testDb.url);
      await migrateToLatest(d.db, d.dialect);
      q = statisticsQueries(d);
    });
    afterAll(async () => {
      await d?.close();
      await testDb?.drop();
    });

    it('equals the sum of the consume logs it summarises after a mixed workload', async () => {
      // An older day's rollup is not touched by rebuilding these three.
      await d.db
        .insertInto('statistics')
        .values({ ...expected([log({ quota: 7 })])[0]!, date: '2026-01-01' })
        .execute();
      await insertLogs(workload(7, 1500));
      await rollup();
      expect(await rows()).toEqual(expected(inserted));
      expect(await q.rows({ from: '2026-01-01', to: '2026-01-01' })).toHaveLength(1);

      // The same totals seen from SQL: the rollup and the log table agree to the unit.
      const fromLogs = await d.db
        .selectFrom('logs')
        .where('type', '=', 2)
        .where('created_at', '>=', START - 86_400)
        .where('created_at', '<', START + 2 * 86_400)
        .select((eb) => [eb.fn.sum<number>('quota').as('quota'), eb.fn.countAll<number>().as('n')])
        .executeTakeFirstOrThrow();
      const summed = (await rows()).reduce(
        (a, r) => ({ quota: a.quota + r.quota, n: a.n + r.request_count }),
        {
          quota: 0,
          n: 0,
        },
      );
      expect(summed).toEqual({ quota: Number(fromLogs.quota), n: Number(fromLogs.n) });
    });

    it('is idempotent and picks up logs written since the last run', async () => {
      await rollup();
      expect(await rows()).toEqual(expected(inserted));
      // New logs, one of them in a group no earlier log had.
      await insertLogs([
        ...workload(11, 300),
        log({ user_id: 99, model_name: 'new-model', quota: 5, created_at: START + 5 }),
      ]);
      // More groups in one day than one upsert statement writes.
      await insertLogs(
        Array.from({ length: 1200 }, (_, i) =>
          log({ user_id: 50, model_name: `bulk-${i % 640}`, quota: i, created_at: START + i }),
        ),
      );
      expect(await q.rollupDay(DAY)).toBeGreaterThan(640);
      await q.rollupDay(addDays(DAY, -1));
      await q.rollupDay(addDays(DAY, 1));
      expect(await rows()).toEqual(expected(inserted));
    });

    it('gives the rows of a whole-day scan when the job reads the days hour by hour', async () => {
      await insertLogs(workload(31, 800));
      // Ten minutes into the next day: the job rolls DAY (within the grace) and the next day.
      // Small slices of ids, so SQLite's catching up takes several queries.
      const job = new StatisticsRollup(q, { nowSeconds: () => START + 86_400 + 600 }, undefined, {
        idsPerQuery: 64,
      });
      expect(await job.run()).toEqual([DAY, DAYS[2]]);
      const want = () => expected(inserted).filter((r) => r.date !== DAYS[0]);
      expect(await q.rows({ from: DAY, to: DAYS[2]! })).toEqual(want());
      // More logs in the part of the days still open; SQLite's run reads only them (by log id).
      const more = workload(37, 300).map((l, i) => ({
        ...l,
        created_at: START + 86_400 - 1800 + (i % 2400),
      }));
      await insertLogs(more);
      await job.run();
      expect(await q.rows({ from: DAY, to: DAYS[2]! })).toEqual(want());
    });

    it.runIf(target.engine === 'sqlite')(
      'reads logs by id through the id range, whatever their number',
      async () => {
        const c = logIdRangeAggregate(d.db, 10, 20).compile();
        const plan = await d.db.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`EXPLAIN QUERY PLAN ${c.sql}`, [...c.parameters]),
        );
        const steps = plan.rows.map((r) => r.detail).join('; ');
        expect(steps).toContain('USING INTEGER PRIMARY KEY');
        expect(steps).not.toContain('INDEX logs_');
      },
    );

    it('gives the same rows when several nodes run it at the same time', async () => {
      await insertLogs(workload(23, 300));
      const other = createDb(testDb.url);
      try {
        const nodes = [
          statisticsQueries(d),
          statisticsQueries(other),
          statisticsQueries(d),
          statisticsQueries(other),
        ];
        await Promise.all(nodes.flatMap((n) => DAYS.map((day) => n.rollupDay(day))));
      } finally {
        await other.close();
      }
      expect(await rows()).toEqual(expected(inserted));
    });

    it('sums per day and model, and per day and channel, for everyone or one user', async () => {
      const all = expected(inserted);
      const byModel = await q.byDateAndModel({ from: DAY, to: DAY });
      for (const m of byModel) {
        const part = all.filter((r) => r.date === m.date && r.model_name === m.modelName);
        expect(m.quota).toBe(part.reduce((a, r) => a + r.quota, 0));
        expect(m.requestCount).toBe(part.reduce((a, r) => a + r.request_count, 0));
      }
      expect(byModel.map((m) => m.modelName).filter((m) => !m.startsWith('bulk-'))).toEqual(
        [...MODELS, 'new-model'].sort(),
      );
      const mine = await q.byDateAndChannel({ from: DAYS[0]!, to: DAYS[2]!, userId: 2 });
      const expectedMine = all.filter((r) => r.user_id === 2);
      expect(mine.reduce((a, r) => a + r.promptTokens, 0)).toBe(
        expectedMine.reduce((a, r) => a + r.prompt_tokens, 0),
      );
      expect(new Set(mine.map((r) => r.date))).toEqual(new Set(DAYS));
      expect(await q.byDateAndModel({ from: DAY, to: DAY, userId: 12345 })).toEqual([]);
    });

    it('counts sign-ups, redemptions and paid orders per UTC day', async () => {
      const users = [
        { t: START - 1, inviter: 0 },
        { t: START, inviter: 0 },
        { t: START + 86_399, inviter: 1 },
        { t: START + 86_400, inviter: 1 },
      ];
      for (const [i, u] of users.entries()) {
        await d.db
          .insertInto('users')
          .values(
            newUserRow({
              username: `stat${i}`,
              password_hash: 'x',
              role: 1,
              quota: 100 * (i + 1),
              aff_code: `sa${i}`,
              created_time: u.t,
              inviter_id: u.inviter,
              used_quota: 10,
            }),
          )
          .execute();
      }
      expect(await q.registrationsByDay(START - 86_400, START + 2 * 86_400)).toEqual([
        { date: '2026-03-13', userCount: 1, inviterUserCount: 0 },
        { date: DAY, userCount: 2, inviterUserCount: 1 },
        { date: '2026-03-15', userCount: 1, inviterUserCount: 1 },
      ]);
      expect(await q.userTotals()).toEqual({
        totalQuota: 1000,
        totalUsedQuota: 40,
        totalUser: 4,
        totalInviterUser: 2,
      });

      const codes = [
        { status: 3, quota: 500, at: START + 10, by: 1 },
        { status: 3, quota: 700, at: START + 86_399, by: 2 },
        { status: 3, quota: 900, at: START + 86_400, by: 1 },
        { status: 1, quota: 50, at: 0, by: 0 },
        { status: 2, quota: 60, at: 0, by: 0 },
      ];
      for (const [i, c] of codes.entries()) {
        await d.db
          .insertInto('redemptions')
          .values({
            user_id: 1,
            key_hash: `h${i}`,
            key_sealed: 's',
            status: c.status,
            name: 'code',
            quota: c.quota,
            created_time: START,
            redeemed_time: c.at,
            redeemed_by: c.by,
          })
          .execute();
      }
      expect(await q.redemptionsByDay(START, START + 2 * 86_400)).toEqual([
        { date: DAY, count: 2, quota: 1200, userCount: 2 },
        { date: '2026-03-15', count: 1, quota: 900, userCount: 1 },
      ]);
      expect(await q.redemptionsByDay(START, START + 2 * 86_400, 2)).toEqual([
        { date: DAY, count: 1, quota: 700, userCount: 1 },
      ]);
      expect(await q.redemptionTotals()).toEqual([
        { status: 1, count: 1, quota: 50 },
        { status: 3, count: 3, quota: 2100 },
      ]);

      const orders = [
        { status: 'success', amount: 10.5, currency: 'USD', quota: 5_000_000, at: START + 3600, user: 1 },
        { status: 'success', amount: 73, currency: 'CNY', quota: 5_000_000, at: START + 7200, user: 2 },
        { status: 'success', amount: 2, currency: 'USD', quota: 1_000_000, at: START + 86_400, user: 1 },
        { status: 'pending', amount: 99, currency: 'USD', quota: 9, at: START, user: 1 },
      ];
      for (const [i, o] of orders.entries()) {
        await d.db
          .insertInto('orders')
          .values({
            user_id: o.user,
            gateway_id: 1,
            trade_no: `T${i}`,
            gateway_no: '',
            amount: 1,
            order_amount: o.amount,
            order_currency: o.currency,
            quota: o.quota,
            fee: 0,
            discount: 0,
            status: o.status,
            created_at: o.at,
            updated_at: o.at,
          })
          .execute();
      }
      expect(await q.ordersByDay(START, START + 2 * 86_400)).toEqual([
        { date: DAY, orderCurrency: 'CNY', count: 1, orderAmount: 73, quota: 5_000_000 },
        { date: DAY, orderCurrency: 'USD', count: 1, orderAmount: 10.5, quota: 5_000_000 },
        { date: '2026-03-15', orderCurrency: 'USD', count: 1, orderAmount: 2, quota: 1_000_000 },
      ]);
      expect(await q.orderTotals()).toEqual([
        { orderCurrency: 'CNY', quota: 5_000_000, money: 73 },
        { orderCurrency: 'USD', quota: 6_000_000, money: 12.5 },
      ]);
    });
  });
}

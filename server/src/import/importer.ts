import { type Kysely, sql } from 'kysely';
import type { SecretBox } from '../crypto/secret-box.js';
import type { Database } from '../db/create-db.js';
import { insertIgnore, isUniqueViolation } from '../db/dialect.js';
import { mapModelOwner, mapPrice, mapStatistic, mapUserGroup } from './mappers/catalog.js';
import { mapChannel } from './mappers/channels.js';
import { mapLog } from './mappers/logs.js';
import type { MapContext, Mapped } from './mappers/mapped.js';
import { groupsFromGroupRatio, mapOption } from './mappers/options.js';
import { mapRedemption } from './mappers/redemptions.js';
import { mapToken, type NewToken } from './mappers/tokens.js';
import { mapUser } from './mappers/users.js';
import { type Progress, silentProgress } from './progress.js';
import { ImportReport, type StepReport } from './report.js';
import { text } from './row-values.js';
import type { SourceDb, SourceSystem } from './source.js';
import { SourceReader, type SourceRow } from './source-reader.js';

export interface ImportOptions {
  from: SourceSystem;
  source: SourceDb;
  target: Database;
  box: SecretBox;
  dryRun: boolean;
  /** Import logs created at or after this unix second; undefined leaves logs out. */
  logsSince?: number;
  nowSeconds: number;
  progress?: Progress;
  batchSize?: number;
}

// Tables whose ids are kept from the old system; PostgreSQL's identity counters move past them.
const ID_TABLES = ['users', 'channels', 'tokens', 'redemptions', 'logs'] as const;

/**
 * Copies an old one-hub / one-api / new-api database into ours. Rows keep their ids, and a row
 * whose id (or unique key) is already in the target is left alone, so a second run, or a run
 * resumed after a crash, creates nothing twice. The source is only read.
 */
export async function runImport(opts: ImportOptions): Promise<ImportReport> {
  const report = new ImportReport(opts.dryRun, opts.from);
  const reader = new SourceReader(opts.source);
  if (!(await reader.has('users')) || !(await reader.has('tokens')) || !(await reader.has('channels')))
    throw new Error(`The source has no users, tokens and channels tables: is it a ${opts.from} database?`);
  // biome-ignore lint/suspicious/noExplicitAny: steps address tables by name.
  const target = opts.target.db as unknown as Kysely<any>;
  const progress = opts.progress ?? silentProgress;
  const batch = opts.batchSize ?? 500;
  const userIds = new Set<number>();
  const ctx: MapContext = { system: opts.from, box: opts.box, nowSeconds: opts.nowSeconds, userIds };

  /** One table copied by id, in batches. */
  const byId = async <T extends { id: number }>(
    step: StepReport,
    table: string,
    map: (r: SourceRow) => Mapped<T>,
    o: {
      where?: { column: string; atLeast: number };
      /** Another reason to refuse a row (a unique key taken in the target). */
      conflicts?: (rows: T[]) => Promise<Map<number, string>>;
      onKept?: (id: number) => void;
      bulk?: boolean;
      /**
       * A column that must match for a row with the same id to count as this one (imported by an
       * earlier run); a different value means the id belongs to another row of the target.
       */
      identity?: { column: NoInfer<keyof T & string>; describe: (value: unknown) => string };
    } = {},
  ) => {
    progress.start(step.name, await reader.count(table, o.where));
    for await (const rows of reader.batches(table, batch, { where: o.where })) {
      step.read += rows.length;
      const ids = rows.map((r) => Number(r.id));
      const columns = o.identity ? ['id', o.identity.column] : ['id'];
      const present = new Map(
        (await target.selectFrom(table).select(columns).where('id', 'in', ids).execute()).map((r) => [
          Number(r.id),
          o.identity ? r[o.identity.column] : undefined,
        ]),
      );
      const fresh: T[] = [];
      for (const r of rows) {
        const id = Number(r.id);
        if (present.has(id)) {
          const identity = o.identity;
          const mapped = identity ? map(r) : undefined;
          if (identity && mapped && 'row' in mapped && mapped.row[identity.column] !== present.get(id)) {
            step.skipped.push({
              id: `#${id}`,
              reason: `id ${id} is taken by ${identity.describe(present.get(id))} in the target`,
            });
            continue;
          }
          step.present++;
          o.onKept?.(id);
          continue;
        }
        const m = map(r);
        if ('skip' in m) step.skipped.push({ id: `#${r.id}`, reason: m.skip });
        else {
          fresh.push(m.row);
          if (m.note) step.notes.push({ id: `#${id}`, note: m.note });
        }
      }
      const refused = o.conflicts ? await o.conflicts(fresh) : new Map<number, string>();
      const accepted = fresh.filter((row) => {
        const why = refused.get(row.id);
        if (why) step.skipped.push({ id: `#${row.id}`, reason: why });
        return !why;
      });
      if (!opts.dryRun) {
        if (o.bulk && accepted.length) {
          for (let i = 0; i < accepted.length; i += 100)
            await target
              .insertInto(table)
              .values(accepted.slice(i, i + 100))
              .execute();
        } else {
          for (let i = accepted.length - 1; i >= 0; i--) {
            try {
              await target.insertInto(table).values(accepted[i]!).execute();
            } catch (err) {
              if (!isUniqueViolation(err)) throw err;
              step.skipped.push({
                id: `#${accepted[i]!.id}`,
                reason: 'a unique value is already taken in the target',
              });
              accepted.splice(i, 1);
            }
          }
        }
      }
      for (const row of accepted) o.onKept?.(row.id);
      step.imported += accepted.length;
      progress.advance(rows.length);
    }
    progress.done();
  };

  /** Rows keyed by something other than an id (a symbol, a model name, an option key). */
  const byKey = async <T>(
    step: StepReport,
    table: string,
    keyColumn: string,
    mapped: { source: string; m: Mapped<T> }[],
  ) => {
    for (const { source, m } of mapped) {
      step.read++;
      if ('skip' in m) {
        step.skipped.push({ id: source, reason: m.skip });
        continue;
      }
      const key = (m.row as Record<string, unknown>)[keyColumn] as string;
      const exists = await target
        .selectFrom(table)
        .select(keyColumn)
        .where(keyColumn, '=', key)
        .executeTakeFirst();
      if (exists) {
        step.present++;
        continue;
      }
      if (!opts.dryRun)
        await target
          .insertInto(table)
          .values(m.row as Record<string, unknown>)
          .execute();
      step.imported++;
    }
  };

  const usernameTaken = async (rows: { id: number; username: string }[]) => {
    const out = new Map<number, string>();
    if (rows.length === 0) return out;
    const taken = await target
      .selectFrom('users')
      .select(['id', 'username'])
      .where(
        'username',
        'in',
        rows.map((r) => r.username),
      )
      .execute();
    const owner = new Map(taken.map((t) => [String(t.username), Number(t.id)]));
    for (const r of rows) {
      const other = owner.get(r.username);
      if (other !== undefined) out.set(r.id, `username ${r.username} already belongs to user #${other}`);
    }
    return out;
  };

  await byId(report.step('users'), 'users', (r) => mapUser(r, ctx), {
    conflicts: usernameTaken,
    onKept: (id) => userIds.add(id),
    identity: { column: 'username', describe: (v) => `user ${String(v)}` },
  });

  const options = await reader.all('options');
  const groups = report.step('user groups');
  if (await reader.has('user_groups')) {
    const rows = await reader.all('user_groups');
    await byKey(
      groups,
      'user_groups',
      'symbol',
      rows.map((r) => ({ source: String(r.symbol), m: mapUserGroup(r) })),
    );
  } else {
    const ratio = options.find((o) => o.key === 'GroupRatio');
    if (ratio) {
      await byKey(
        groups,
        'user_groups',
        'symbol',
        groupsFromGroupRatio(String(ratio.value)).map((m) => ({ source: 'GroupRatio', m })),
      );
    }
  }

  await byKey(
    report.step('options'),
    'options',
    'key',
    options
      .filter((o) => o.key !== 'GroupRatio')
      .map((r) => ({ source: String(r.key), m: mapOption(r, opts.nowSeconds) })),
  );

  const prices = report.step('prices');
  if (await reader.has('prices')) {
    const rows = await reader.all('prices');
    await byKey(
      prices,
      'prices',
      'model',
      rows.map((r) => ({ source: String(r.model), m: mapPrice(r) })),
    );
  } else if (options.some((o) => o.key === 'ModelRatio')) {
    prices.notes.push({
      id: 'ModelRatio',
      note: 'model and completion ratios are not converted; the built-in price table applies until you set prices',
    });
  }

  const owners = report.step('model owners');
  if (await reader.has('model_ownedby')) {
    const rows = await reader.all('model_ownedby');
    for (const r of rows) {
      owners.read++;
      const m = mapModelOwner(r);
      if ('skip' in m) {
        owners.skipped.push({ id: `#${r.id}`, reason: m.skip });
        continue;
      }
      const exists = await target
        .selectFrom('model_owners')
        .select('id')
        .where('id', '=', m.row.id)
        .executeTakeFirst();
      if (exists) owners.present++;
      else {
        if (!opts.dryRun) await target.insertInto('model_owners').values(m.row).execute();
        owners.imported++;
      }
    }
  }

  await byId(report.step('channels'), 'channels', (r) => mapChannel(r, ctx));
  await byId<NewToken>(report.step('tokens'), 'tokens', (r) => mapToken(r, ctx), {
    identity: { column: 'key_hash', describe: () => 'another token' },
  });
  await byId(report.step('redemptions'), 'redemptions', (r) => mapRedemption(r, ctx));
  if (opts.logsSince !== undefined) {
    await byId(report.step('logs'), 'logs', (r) => mapLog(r), {
      where: { column: 'created_at', atLeast: opts.logsSince },
      bulk: true,
    });
  }

  // one-hub keeps daily totals per user, channel and model (older than its logs, often): the
  // console's history charts. one-api and new-api have none; their imported logs are not summed.
  if (await reader.has('statistics')) {
    const step = report.step('statistics');
    const keys = ['date', 'user_id', 'channel_id', 'model_name'] as const;
    progress.start(step.name, await reader.count('statistics'));
    for await (const rows of reader.pages('statistics', [...keys], batch)) {
      step.read += rows.length;
      const fresh = [];
      for (const r of rows) {
        const m = mapStatistic(r);
        if ('skip' in m) {
          step.skipped.push({
            id: `${text(r, 'date')}/${text(r, 'user_id')}/${text(r, 'model_name')}`,
            reason: m.skip,
          });
          continue;
        }
        const exists = await target
          .selectFrom('statistics')
          .select('date')
          .where('date', '=', m.row.date)
          .where('user_id', '=', m.row.user_id)
          .where('channel_id', '=', m.row.channel_id)
          .where('model_name', '=', m.row.model_name)
          .executeTakeFirst();
        if (exists) step.present++;
        else fresh.push(m.row);
      }
      if (!opts.dryRun)
        for (let i = 0; i < fresh.length; i += 100)
          await insertIgnore(
            opts.target.dialect,
            opts.target.db.insertInto('statistics').values(fresh.slice(i, i + 100)),
          ).execute();
      step.imported += fresh.length;
      progress.advance(rows.length);
    }
    progress.done();
  }

  if (!opts.dryRun && opts.target.dialect === 'postgres') {
    for (const table of ID_TABLES) {
      await sql`select setval(pg_get_serial_sequence(${table}, 'id'), greatest((select max(id) from ${sql.table(table)}), 1))`.execute(
        opts.target.db,
      );
    }
  }
  return report;
}

import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { migrations } from '../db/migrations/index.js';
import type { Services } from '../services.js';
import type { Drain } from './drain.js';

/** A readiness answer is reused this long: probes from many balancers cost one query a second. */
const READY_CACHE_MS = 1000;

interface Readiness {
  ready: boolean;
  database: boolean;
  migrations: boolean;
  /** Absent without Redis. Reported, not required: while Redis is away the node serves on its fallbacks. */
  redis?: boolean;
  draining: boolean;
}

/**
 * `/healthz` (the process serves), `/readyz` (database reachable, every migration applied, not
 * stopping), `/health` (the same as /healthz) and `/metrics` (Prometheus text behind METRICS_TOKEN,
 * else 404). None is authenticated by session, none ever answers with the console's page.
 */
export function registerHealthRoutes(app: FastifyInstance, s: Services, drain: Drain): void {
  const expected = Object.keys(migrations(s.database.dialect)).length;
  let cached: { at: number; value: Omit<Readiness, 'draining' | 'ready'> } | undefined;
  let probing: Promise<Omit<Readiness, 'draining' | 'ready'>> | undefined;

  const probe = async (): Promise<Omit<Readiness, 'draining' | 'ready'>> => {
    let database = false;
    let migrated = false;
    try {
      const row = await sql<{ n: number | string }>`select count(*) as n from kysely_migration`.execute(
        s.database.db,
      );
      database = true;
      migrated = Number(row.rows[0]?.n ?? 0) >= expected;
    } catch {
      // Unreachable (or the ledger table missing): not ready.
    }
    const redis = s.ops?.redis;
    if (!redis) return { database, migrations: migrated };
    const up = await redis.ping().then(
      () => true,
      () => false,
    );
    return { database, migrations: migrated, redis: up };
  };

  const readiness = async (): Promise<Readiness> => {
    const now = Date.now();
    if (!cached || now - cached.at > READY_CACHE_MS) {
      probing ??= probe().finally(() => {
        probing = undefined;
      });
      cached = { at: now, value: await probing };
    }
    const v = cached.value;
    const draining = drain.draining;
    return { ready: v.database && v.migrations && !draining, ...v, draining };
  };

  const alive = (_req: unknown, reply: { code(n: number): { send(b: unknown): unknown } }) =>
    reply.code(200).send({ alive: true });
  app.get('/healthz', alive);
  app.get('/health', alive);

  app.get('/readyz', async (_req, reply) => {
    const r = await readiness();
    return reply.code(r.ready ? 200 : 503).send(r);
  });

  const token = s.config.metricsToken ? Buffer.from(`Bearer ${s.config.metricsToken}`) : undefined;
  app.get('/metrics', async (req, reply) => {
    const metrics = s.ops?.metrics;
    if (!token || !metrics) return reply.code(404).type('text/plain').send('Not found');
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length !== token.length || !timingSafeEqual(given, token)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="metrics"')
        .type('text/plain')
        .send('A valid METRICS_TOKEN bearer token is required');
    }
    return reply.type(metrics.contentType).send(await metrics.text());
  });
}

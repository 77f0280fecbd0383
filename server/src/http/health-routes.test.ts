import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineTargets } from '../test/databases.js';
import { type FakeUpstream, startFakeUpstream } from '../test/fake-upstream.js';
import { createChannel, createToken, settled } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, type TestApp } from '../test/test-app.js';

const METRICS_TOKEN = 'metrics-token-0123456789';
const UPSTREAM_KEY = 'sk-upstream-health-test';

/** A console build whose page would be served for any unknown GET. */
function consoleDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchyard-console-'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>console</title>');
  return dir;
}

async function until<T>(probe: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The value of the sample `name` whose labels include `labels` (in any order), from Prometheus text. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('health checks and metrics without METRICS_TOKEN', () => {
  let t: TestApp;
  let web: string;
  beforeAll(async () => {
    web = consoleDir();
    t = await createTestApp({ env: { WEB_DIST: web } });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(web, { recursive: true, force: true });
  });

  it('answers /healthz and /health as alive, never with the console page', async () => {
    for (const url of ['/healthz', '/health']) {
      const res = await t.call({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ alive: true });
    }
    // The console still answers an unknown page: the routes above are not shadowed by it.
    const page = await t.call({ method: 'GET', url: '/some/console/page' });
    expect(page.body).toContain('<title>console</title>');
  });

  it('answers /readyz with what it checked', async () => {
    const res = await t.call({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ready: true, database: true, migrations: true, draining: false });
  });

  it('hides /metrics (404, plain text, no console) when no token is configured', async () => {
    const res = await t.call({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer x' } });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('<title>console</title>');
  });
});

const postgres = engineTargets().find((e) => e.engine === 'postgres');

describe.skipIf(!postgres || postgres.skipReason !== undefined)('ledger metrics on PostgreSQL', () => {
  let t: TestApp;
  let up: FakeUpstream;
  let gateway: string;
  beforeAll(async () => {
    up = await startFakeUpstream({ apiKey: UPSTREAM_KEY });
    t = await createTestApp({ engine: postgres, env: { METRICS_TOKEN, QUOTA_LEASE_SLICE: '100000' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    gateway = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await t?.close();
    await up?.close();
  });

  it('reports the group-commit writer (commits, writes, queue, lag) and the quota lease levels', async () => {
    const root = await t.signIn('root', ROOT_PASSWORD);
    const price = await t.call({
      method: 'POST',
      url: '/api/prices/single',
      headers: { cookie: root },
      payload: { model: 'metric-pg', type: 'tokens', channel_type: 1, input: 2, output: 4 },
    });
    expect(price.statusCode, price.body).toBe(200);
    await createChannel(t, root, { name: 'pg', key: UPSTREAM_KEY, base_url: up.url, models: ['metric-pg'] });
    const token = await createToken(t, root);
    const client = new OpenAI({ apiKey: token.key, baseURL: `${gateway}/v1`, maxRetries: 0 });
    const scrape = async () =>
      (await fetch(`${gateway}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    const call = () =>
      client.chat.completions.create({ model: 'metric-pg', messages: [{ role: 'user', content: 'hi' }] });
    await call();
    // The first call reserves directly and starts a lease slice in the background; once the slice
    // is in, calls reserve against it.
    await until(
      scrape,
      (text) => (sample(text, 'switchyard_quota_leases', { level: 'rows' }) ?? 0) >= 1,
      'a lease',
    );
    for (let i = 0; i < 4; i++) await call();
    await settled(t);

    const text = await until(
      scrape,
      (x) => (sample(x, 'switchyard_ledger_writes_committed_total', {}) ?? 0) >= 5,
      'five committed settlements',
    );
    const commits = sample(text, 'switchyard_ledger_commits_total', {}) ?? 0;
    const writes = sample(text, 'switchyard_ledger_writes_committed_total', {}) ?? 0;
    expect(commits).toBeGreaterThan(0);
    expect(writes).toBeGreaterThanOrEqual(commits);
    expect(sample(text, 'switchyard_ledger_writes_failed_total', {})).toBe(0);
    expect(sample(text, 'switchyard_ledger_writes_queued', {})).toBe(0);
    expect(sample(text, 'switchyard_ledger_lag_seconds', {})).toBe(0);
    const available = sample(text, 'switchyard_quota_leases', { level: 'available' }) ?? 0;
    expect(available).toBeGreaterThan(0);
    expect(available).toBeLessThanOrEqual(100_000);
    expect(sample(text, 'switchyard_quota_leases', { level: 'outstanding' })).toBe(0);
    // Counters only grow between scrapes.
    const again = await scrape();
    expect(sample(again, 'switchyard_ledger_commits_total', {})).toBeGreaterThanOrEqual(commits);
  });
});

describe('metrics with METRICS_TOKEN', () => {
  let t: TestApp;
  let up: FakeUpstream;
  let gateway: string;
  beforeAll(async () => {
    up = await startFakeUpstream({ apiKey: UPSTREAM_KEY });
    t = await createTestApp({ env: { METRICS_TOKEN } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    gateway = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await t?.close();
    await up?.close();
  });

  const scrape = () => fetch(`${gateway}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });

  it('refuses a missing or wrong token', async () => {
    const none = await fetch(`${gateway}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const wrong = await fetch(`${gateway}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}x` },
    });
    expect(wrong.status).toBe(401);
  });

  it('counts relay calls by route, model, channel and status, with latencies and quota, in Prometheus text', async () => {
    const root = await t.signIn('root', ROOT_PASSWORD);
    const price = await t.call({
      method: 'POST',
      url: '/api/prices/single',
      headers: { cookie: root },
      payload: { model: 'metric-chat', type: 'tokens', channel_type: 1, input: 2, output: 4 },
    });
    expect(price.statusCode, price.body).toBe(200);
    const [channel] = await createChannel(t, root, {
      name: 'metered',
      key: UPSTREAM_KEY,
      base_url: up.url,
      models: ['metric-chat'],
    });
    const token = await createToken(t, root);
    const client = new OpenAI({ apiKey: token.key, baseURL: `${gateway}/v1`, maxRetries: 0 });
    await client.chat.completions.create({
      model: 'metric-chat',
      messages: [{ role: 'user', content: 'hi' }],
    });
    await client.chat.completions.create({
      model: 'metric-chat',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const refused = new OpenAI({ apiKey: 'sk-not-a-key', baseURL: `${gateway}/v1`, maxRetries: 0 });
    await expect(
      refused.chat.completions.create({ model: 'metric-chat', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({ status: 401 });
    await settled(t);

    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    const node = t.s.ops!.nodeId;
    const route = '/v1/chat/completions';
    const requests = 'switchyard_relay_requests_total';
    expect(
      sample(text, requests, { route, model: 'metric-chat', channel: String(channel), status: '200', node }),
    ).toBe(2);
    expect(sample(text, requests, { route, model: '', channel: '0', status: '401', node })).toBe(1);
    const charged = sample(text, 'switchyard_quota_charged_total', {
      model: 'metric-chat',
      channel: String(channel),
    });
    expect(charged).toBeGreaterThan(0);
    expect(charged).toBe(await t.s.repos.logs.sumConsumeQuota({}));
    for (const h of ['duration', 'upstream', 'first_byte']) {
      const name = `switchyard_relay_${h}_seconds`;
      expect(sample(text, `${name}_count`, { route, node })).toBe(2);
      expect(sample(text, `${name}_bucket`, { route, le: '+Inf' })).toBe(2);
      // Cumulative buckets never decrease.
      const buckets = text
        .split('\n')
        .filter((l) => l.startsWith(`${name}_bucket{`))
        .map((l) => Number(l.split(' ').at(-1)));
      expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
      expect(sample(text, `${name}_sum`, { route })).toBeGreaterThan(0);
    }
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds\{node="[^"]+"\} /m);
    expect(text).toMatch(/^switchyard_settlement_dead_letters\{node="[^"]+"\} 0$/m);
    expect(text).toMatch(/^switchyard_settlements_pending\{node="[^"]+"\} 0$/m);
    // Every metric the Grafana dashboard queries is exported (the pool and Redis gauges exist only
    // on a server database and with Redis).
    const dashboard = readFileSync(
      new URL('../../../deploy/grafana/switchyard.json', import.meta.url),
      'utf8',
    );
    const queried = new Set(
      [...dashboard.matchAll(/\b((?:switchyard|nodejs|process)_[a-z0-9_]+)/g)].map((m) => m[1]!),
    );
    expect(queried.size).toBeGreaterThan(10);
    for (const name of queried) {
      if (name === 'switchyard_db_pool_connections' || name === 'switchyard_redis_up') continue;
      expect(text, name).toMatch(new RegExp(`^${name}[{ ]`, 'm'));
    }
    // Every sample line is `name{labels} value`: the whole page parses as the text format.
    for (const line of text.split('\n').filter((l) => l && !l.startsWith('#')))
      expect(line).toMatch(/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? [-+0-9.eE]+|NaN|[+-]Inf$/);
  });

  it('reports not ready while the database cannot be reached', async () => {
    await t.s.database.close();
    const res = await until(
      () => fetch(`${gateway}/readyz`),
      (r) => r.status === 503,
      'readiness to turn false',
    );
    expect(await res.json()).toMatchObject({ ready: false, database: false });
    // Alive all the same.
    expect((await fetch(`${gateway}/healthz`)).status).toBe(200);
  });
});

// Starts the built gateway on a fresh PostgreSQL schema for the browser tests' "postgres" project,
// and drops the schema when Playwright stops it. Schemas left by a run that was killed outright are
// dropped by the next run once they are a day old (a checkout beside this one may be using a newer one).
//
//   TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test node --import tsx e2e/postgres-server.ts
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const serverUrl = process.env.TEST_POSTGRES_URL;
if (!serverUrl) throw new Error('TEST_POSTGRES_URL is not set');

const PREFIX = 'sy_e2e_';
const DAY_MS = 24 * 60 * 60 * 1000;
const schema = `${PREFIX}${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

async function admin<T>(work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

await admin(async (c) => {
  const { rows } = await c.query<{ nspname: string }>(
    'select nspname from pg_namespace where nspname like $1',
    [`${PREFIX}%`],
  );
  for (const { nspname } of rows) {
    const born = Number.parseInt(nspname.slice(PREFIX.length).split('_')[0] ?? '', 36);
    if (Number.isFinite(born) && Date.now() - born > DAY_MS)
      await c.query(`drop schema if exists ${nspname} cascade`);
  }
  await c.query(`create schema ${schema}`);
});

const url = new URL(serverUrl);
url.searchParams.set('options', `-c search_path=${schema}`);
const child = spawn(process.execPath, ['server/dist/main.js'], {
  env: { ...process.env, DATABASE_URL: url.toString() },
  stdio: 'inherit',
});

let stopping = false;
const stop = (signal: NodeJS.Signals) => {
  if (stopping) return;
  stopping = true;
  child.kill(signal);
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));

const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 0)));
await admin((c) => c.query(`drop schema if exists ${schema} cascade`)).catch((err: unknown) =>
  console.error(`dropping ${schema} failed: ${String(err)}`),
);
process.exit(stopping ? 0 : code);

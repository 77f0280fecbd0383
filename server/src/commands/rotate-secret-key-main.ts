import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../config.js';
import { SecretBox } from '../crypto/secret-box.js';
import { createDb } from '../db/create-db.js';
import { migrateToLatest } from '../db/migrations/index.js';
import { isEntryPoint } from '../entry-point.js';
import { RotationRefused, rotateSecretKey } from './rotate-secret-key.js';

// `npm run rotate-secret-key`: the operator command. Stop every node first; run it once with the
// nodes' environment (DATABASE_URL, SECRET_KEY or DATA_DIR) plus NEW_SECRET_KEY; then start the
// nodes with SECRET_KEY set to the new value.

const SECRETS_FILE = 'secrets.json';

function currentKey(dataDir: string, fromEnv: string | undefined): { key: string; file?: string } {
  if (fromEnv) return { key: fromEnv };
  const file = path.join(dataDir, SECRETS_FILE);
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { secretKey?: unknown };
    if (typeof stored.secretKey === 'string' && stored.secretKey.length >= 32)
      return { key: stored.secretKey, file };
  } catch {
    // Reported below.
  }
  throw new RotationRefused(`No current key: SECRET_KEY is not set and ${file} holds none.`);
}

export async function runRotation(env: Record<string, string | undefined>, out: (line: string) => void) {
  const config = loadConfig(env);
  const next = env.NEW_SECRET_KEY ?? '';
  if (next.length < 32) throw new RotationRefused('NEW_SECRET_KEY must be set, at least 32 characters.');
  const current = currentKey(config.dataDir, config.secretKey);
  if (current.key === next) throw new RotationRefused('NEW_SECRET_KEY is the current key. Nothing changed.');

  const database = createDb(config.databaseUrl);
  try {
    await migrateToLatest(database.db, database.dialect);
    const report = await rotateSecretKey(database.db, new SecretBox(current.key), new SecretBox(next));
    out(
      `Re-sealed under the new key: ${report.channels} channel keys, ${report.tokens} API keys, ` +
        `${report.redemptions} redemption codes, ${report.payments} payment configurations, ${report.options} secret options.`,
    );
  } finally {
    await database.close();
  }
  if (current.file) {
    // The key came from DATA_DIR (a single node that generated it): keep it there, atomically.
    const stored = JSON.parse(readFileSync(current.file, 'utf8')) as Record<string, unknown>;
    const temp = `${current.file}.new`;
    writeFileSync(temp, `${JSON.stringify({ ...stored, secretKey: next }, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, current.file);
    out(`Wrote the new key to ${current.file}.`);
  } else {
    out('Set SECRET_KEY to the new value on every node before starting them.');
  }
}

if (isEntryPoint(import.meta.url)) {
  runRotation(process.env, (line) => process.stdout.write(`${line}\n`)).catch((err) => {
    if (err instanceof RotationRefused || err instanceof ConfigError)
      process.stderr.write(`${err.message}\n`);
    else
      process.stderr.write(`rotate-secret-key failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}

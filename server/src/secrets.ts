import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface Secrets {
  sessionSecret: string;
  secretKey: string;
}

const FILE = 'secrets.json';

/**
 * Secrets not given in the environment are generated once into DATA_DIR, so a single node works
 * with no setup and keeps its sessions and encrypted data across restarts. Several nodes must be
 * given the same values in the environment instead.
 */
export function resolveSecrets(
  dataDir: string,
  given: { sessionSecret: string | undefined; secretKey: string | undefined },
): { secrets: Secrets; generated: (keyof Secrets)[] } {
  const file = path.join(dataDir, FILE);
  let stored: Partial<Secrets> = {};
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<Secrets>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new Error(`Cannot read ${file}: ${String(err)}`);
  }
  const generated: (keyof Secrets)[] = [];
  const pick = (name: keyof Secrets, env: string | undefined): string => {
    if (env) return env;
    const existing = stored[name];
    if (typeof existing === 'string' && existing.length >= 32) return existing;
    generated.push(name);
    return randomBytes(32).toString('base64url');
  };
  const secrets: Secrets = {
    sessionSecret: pick('sessionSecret', given.sessionSecret),
    secretKey: pick('secretKey', given.secretKey),
  };
  if (generated.length > 0) {
    mkdirSync(dataDir, { recursive: true });
    const toStore = { ...stored };
    for (const name of generated) toStore[name] = secrets[name];
    writeFileSync(file, `${JSON.stringify(toStore, null, 2)}\n`, { mode: 0o600 });
  }
  return { secrets, generated };
}

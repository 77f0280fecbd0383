import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const FILE = 'node-id';

/**
 * This node's stable name: NODE_ID, else one generated once into DATA_DIR. Reserves held in a
 * shared database carry it, so a node that restarts gives back what its previous run held. Two
 * processes running at once must not share it (nor, without NODE_ID, a DATA_DIR).
 */
export function resolveNodeId(dataDir: string, given: string | undefined): string {
  if (given) return given;
  const file = path.join(dataDir, FILE);
  try {
    const stored = readFileSync(file, 'utf8').trim();
    if (/^[A-Za-z0-9._-]{1,64}$/.test(stored)) return stored;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new Error(`Cannot read ${file}: ${String(err)}`);
  }
  const id = `node-${randomBytes(8).toString('hex')}`;
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${id}\n`);
  return id;
}

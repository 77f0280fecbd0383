import { parseArgs } from 'node:util';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { SecretBox } from '../crypto/secret-box.js';
import { createDb } from '../db/create-db.js';
import { migrateToLatest } from '../db/migrations/index.js';
import { runImport } from '../import/importer.js';
import { type Progress, terminalProgress } from '../import/progress.js';
import type { ImportReport } from '../import/report.js';
import { openSource, SOURCE_SYSTEMS, type SourceSystem } from '../import/source.js';
import { resolveSecrets } from '../secrets.js';

export const IMPORT_USAGE = `Usage: switchyard import --from one-hub|one-api|new-api --source <dsn> [--dry-run] [--logs all|since=YYYY-MM-DD]

  --source   the old system's database, read only: sqlite:<file> (or a .db path), postgres://…,
             mysql://…, or its SQL_DSN (user:pass@tcp(host:3306)/db)
  --dry-run  print what would be imported, and every row that cannot be, without writing
  --logs     also copy request logs (all, or those since a date); resumable: run it again
The target is this gateway's database (DATABASE_URL, DATA_DIR, SECRET_KEY as for start).`;

export class UsageError extends Error {}

export interface ImportArgs {
  from: SourceSystem;
  source: string;
  dryRun: boolean;
  logsSince: number | undefined;
}

export function parseImportArgs(argv: string[]): ImportArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        from: { type: 'string' },
        source: { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        logs: { type: 'string' },
      },
      strict: true,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const from = values.from as string | undefined;
  if (!from || !SOURCE_SYSTEMS.includes(from as SourceSystem))
    throw new UsageError(`--from must be one of ${SOURCE_SYSTEMS.join(', ')}`);
  const source = values.source as string | undefined;
  if (!source) throw new UsageError('--source is required');
  let logsSince: number | undefined;
  const logs = values.logs as string | undefined;
  if (logs !== undefined) {
    if (logs === 'all') logsSince = 0;
    else {
      const m = /^since=(\d{4}-\d{2}-\d{2})$/.exec(logs);
      const ms = m ? Date.parse(`${m[1]}T00:00:00Z`) : Number.NaN;
      if (!Number.isFinite(ms)) throw new UsageError('--logs takes all or since=YYYY-MM-DD');
      logsSince = Math.floor(ms / 1000);
    }
  }
  return { from: from as SourceSystem, source, dryRun: values['dry-run'] === true, logsSince };
}

/** Runs an import into the database `config` names, with the secrets the gateway itself uses. */
export async function importInto(
  config: Config,
  args: ImportArgs,
  progress?: Progress,
): Promise<ImportReport> {
  const { secrets } = resolveSecrets(config.dataDir, {
    sessionSecret: config.sessionSecret,
    secretKey: config.secretKey,
  });
  const source = openSource(args.source);
  const target = createDb(config.databaseUrl, { poolSize: 2 });
  try {
    await migrateToLatest(target.db, target.dialect);
    return await runImport({
      from: args.from,
      source,
      target,
      box: new SecretBox(secrets.secretKey),
      dryRun: args.dryRun,
      logsSince: args.logsSince,
      nowSeconds: Math.floor(Date.now() / 1000),
      ...(progress ? { progress } : {}),
    });
  } finally {
    await source.close();
    await target.close();
  }
}

/** `switchyard import …`: prints the report; answers the exit code. */
export async function importCommand(argv: string[]): Promise<number> {
  let args: ImportArgs;
  let config: Config;
  try {
    args = parseImportArgs(argv);
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n\n${IMPORT_USAGE}\n`);
      return 2;
    }
    throw err;
  }
  const report = await importInto(config, args, terminalProgress(process.stderr));
  process.stdout.write(report.format());
  return 0;
}

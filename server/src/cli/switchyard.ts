#!/usr/bin/env node
import { ConfigError, loadConfig } from '../config.js';
import { createDb } from '../db/create-db.js';
import { migrateToLatest } from '../db/migrations/index.js';
import { IMPORT_USAGE, importCommand } from './import-command.js';

// The packaged server's command: `switchyard start|import|migrate|create-root`. Each reads the same
// environment as the server (DATABASE_URL, DATA_DIR, SECRET_KEY, …).

const USAGE = `Usage: switchyard <command>

  start        run the gateway (the default)
  migrate      bring the database schema up to date and exit
  create-root  create the root user if there is no user yet (INITIAL_ROOT_PASSWORD, else a
               generated password is printed once), with the built-in groups and prices
  import       move in from one-hub, one-api or new-api (switchyard import --help)
`;

async function migrate(): Promise<number> {
  const config = loadConfig(process.env);
  const database = createDb(config.databaseUrl, { poolSize: 1 });
  try {
    const applied = await migrateToLatest(database.db, database.dialect);
    process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'The schema is up to date.\n');
    return 0;
  } finally {
    await database.close();
  }
}

async function createRoot(): Promise<number> {
  const { composeServices } = await import('../main.js');
  const config = loadConfig(process.env);
  const { services, seed } = await composeServices(config);
  await services.close();
  if (!seed.createdRoot) process.stdout.write('Users exist already: no root user created.\n');
  else if (seed.generatedRootPassword)
    process.stdout.write(`Created the root user. Username: root  Password: ${seed.generatedRootPassword}\n`);
  else process.stdout.write('Created the root user with INITIAL_ROOT_PASSWORD.\n');
  return 0;
}

export async function run(argv: string[]): Promise<number> {
  const [command = 'start', ...rest] = argv;
  try {
    switch (command) {
      case 'start': {
        const { main } = await import('../main.js');
        await main();
        return -1;
      }
      case 'migrate':
        return await migrate();
      case 'create-root':
        return await createRoot();
      case 'import':
        if (rest.includes('--help') || rest.includes('-h')) {
          process.stdout.write(`${IMPORT_USAGE}\n`);
          return 0;
        }
        return await importCommand(rest);
      case '--help':
      case '-h':
      case 'help':
        process.stdout.write(USAGE);
        return 0;
      default:
        process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    process.stderr.write(
      `switchyard ${command} failed: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return 1;
  }
}

run(process.argv.slice(2)).then((code) => {
  // `start` keeps running until a signal; the others exit with their status.
  if (code >= 0) process.exit(code);
});

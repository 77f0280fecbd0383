// Child-process entry for the "two nodes start together" test: migrates DATABASE_URL and prints
// the names of the migrations this process applied as JSON.
import { createDb } from '../db/create-db.js';
import { migrateToLatest } from '../db/migrations/index.js';

const url = process.argv[2];
if (!url) throw new Error('usage: run-migrations <database-url>');
const database = createDb(url);
try {
  process.stdout.write(JSON.stringify(await migrateToLatest(database.db, database.dialect)));
} finally {
  await database.close();
}

import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types.
type AnyDb = Kysely<any>;

/**
 * Every consume log row pays for each index of `logs` on the settlement path, and text indexes cost
 * most. Three served only rare console filters and go:
 * - (username, model_name): a username filter now looks the user up and walks (user_id, created_at);
 * - (token_name, created_at): a user's token filter already walks (user_id, created_at); an
 *   administrator's runs over the time range, or newest first until a page is full;
 * - (source_ip, created_at): an administrator's forensic filter, served the same way.
 * Kept: (created_at, type), (user_id, created_at), (type, created_at), (model_name, created_at),
 * (channel_id, created_at).
 */
const DROPPED = [
  ['logs_username_model_idx', ['username', 'model_name']],
  ['logs_token_name_idx', ['token_name', 'created_at']],
  ['logs_source_ip_idx', ['source_ip', 'created_at']],
] as const;

export function leanLogIndexesMigration(dialect: DialectName): Migration {
  return {
    async up(db: AnyDb) {
      for (const [name] of DROPPED) {
        const b = db.schema.dropIndex(name);
        await (dialect === 'mysql' ? b.on('logs') : b.ifExists()).execute();
      }
    },
    async down(db: AnyDb) {
      for (const [name, columns] of DROPPED) {
        const b = db.schema
          .createIndex(name)
          .on('logs')
          .columns([...columns]);
        await (dialect === 'mysql' ? b : b.ifNotExists()).execute();
      }
    },
  };
}

import type { Insertable } from 'kysely';
import type { Database } from '../create-db.js';
import type { AuditLogsTable } from '../tables.js';

export type AuditLogsQueries = ReturnType<typeof auditLogsQueries>;

export function auditLogsQueries({ db }: Database) {
  return {
    async insert(row: Insertable<AuditLogsTable>): Promise<void> {
      await db.insertInto('audit_logs').values(row).execute();
    },
    async recent(limit: number) {
      return db.selectFrom('audit_logs').selectAll().orderBy('id', 'desc').limit(limit).execute();
    },
  };
}

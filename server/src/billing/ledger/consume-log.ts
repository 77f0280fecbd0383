import type { Insertable } from 'kysely';
import type { LogsTable } from '../../db/tables.js';

/**
 * The consume log row of a settlement, every column but `quota`: the ledger writes the amount it
 * actually charged, which is only known inside the settling transaction.
 */
export type ConsumeLog = Omit<Insertable<LogsTable>, 'id' | 'quota'>;

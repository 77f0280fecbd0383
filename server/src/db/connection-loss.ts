// Errors that say the connection a statement ran on went away (the server restarted, failed over,
// or ended the session), not that the statement was wrong: the same work may be tried again on a
// new connection once the pool has one.

const NODE_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTCONN']);

// SQLSTATE class 08 (connection exception) and 57P01-57P03 (admin shutdown, crash shutdown,
// cannot connect now): what a restart or `pg_terminate_backend` answers.
const PG_STATES = /^(08...|57P0[123])$/;

// ER_CON_COUNT_ERROR, ER_SERVER_SHUTDOWN, ER_CONNECTION_KILLED (MariaDB `KILL`), ER_QUERY_INTERRUPTED
// of a killed connection, CR_SERVER_GONE_ERROR, CR_SERVER_LOST.
const MYSQL_ERRNOS = new Set([1040, 1053, 1927, 2006, 2013]);
const MYSQL_CODES = new Set(['PROTOCOL_CONNECTION_LOST', 'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR']);

export function isConnectionLoss(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; errno?: unknown; message?: unknown; fatal?: unknown };
  if (typeof e.code === 'string') {
    if (NODE_CODES.has(e.code) || MYSQL_CODES.has(e.code) || PG_STATES.test(e.code)) return true;
  }
  if (typeof e.errno === 'number' && MYSQL_ERRNOS.has(e.errno)) return true;
  if (e.fatal === true) return true;
  // pg reports a socket closed under a query, and a query sent on a pooled client whose socket died
  // in between, by message only.
  return (
    typeof e.message === 'string' &&
    /^(Connection terminated|Client has encountered a connection error|Client was closed)/.test(e.message)
  );
}

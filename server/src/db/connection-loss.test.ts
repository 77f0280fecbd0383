import { describe, expect, it } from 'vitest';
import { isConnectionLoss } from './connection-loss.js';

describe('isConnectionLoss', () => {
  it('knows what a restart, a failover or a killed session answers, on every driver', () => {
    const lost = [
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      new Error('Connection terminated unexpectedly'),
      // pg: a query sent on a pooled client whose socket died after the pool handed it out.
      new Error('Client has encountered a connection error and is not queryable'),
      new Error('Client was closed and is not queryable'),
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      Object.assign(new Error('Connection was killed'), { errno: 1927 }),
      Object.assign(new Error('Connection lost: The server closed the connection.'), {
        code: 'PROTOCOL_CONNECTION_LOST',
      }),
    ];
    for (const err of lost) expect(isConnectionLoss(err), err.message).toBe(true);
  });

  it('leaves errors of the statement itself alone', () => {
    const wrong = [
      Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }),
      Object.assign(new Error('deadlock detected'), { code: '40P01' }),
      Object.assign(new Error("Duplicate entry 'x' for key 'PRIMARY'"), { errno: 1062 }),
      new Error('Connection string is invalid'),
      'Connection terminated',
      undefined,
    ];
    for (const err of wrong) expect(isConnectionLoss(err), String(err)).toBe(false);
  });
});

import type { TestApp } from './test-app.js';

/** Creates channels through the management API and returns their ids (one per key line). */
export async function createChannel(
  t: TestApp,
  adminCookie: string,
  fields: Record<string, unknown>,
): Promise<number[]> {
  const res = await t.call({
    method: 'POST',
    url: '/api/channel/',
    headers: { cookie: adminCookie },
    payload: { type: 1, group: 'default', priority: 0, weight: 1, ...fields },
  });
  if (res.statusCode !== 200) throw new Error(`channel create failed: ${res.statusCode} ${res.body}`);
  const data = res.json().data as { id: number }[] | { id: number } | number[];
  if (Array.isArray(data)) return data.map((d) => (typeof d === 'number' ? d : d.id));
  return [data.id];
}

/** Creates a token for the signed-in user and returns its id and full `sk-` key. */
export async function createToken(
  t: TestApp,
  cookie: string,
  fields: Record<string, unknown> = {},
): Promise<{ id: number; key: string }> {
  const res = await t.call({
    method: 'POST',
    url: '/api/token/',
    headers: { cookie },
    payload: { name: 'test', expired_time: -1, remain_quota: 0, unlimited_quota: true, ...fields },
  });
  if (res.statusCode !== 200) throw new Error(`token create failed: ${res.statusCode} ${res.body}`);
  const data = res.json().data as { id: number; key: string };
  return { id: data.id, key: data.key };
}

/** Waits until every settlement started by the relay has committed. */
export async function settled(t: TestApp): Promise<void> {
  for (let i = 0; i < 100; i++) {
    await t.s.relay.pending.idle();
    await t.s.relay.ledger.flush();
    if (t.s.relay.pending.size === 0) return;
  }
  throw new Error('settlements did not finish');
}

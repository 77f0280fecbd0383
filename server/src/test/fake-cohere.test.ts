import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCohere, overlapScore, startFakeCohere } from './fake-cohere.js';

let fake: FakeCohere;
beforeAll(async () => {
  fake = await startFakeCohere({ apiKey: 'k' });
});
afterAll(() => fake.close());

async function post(path: string, body: string, key = 'k') {
  const res = await request(`${fake.url}${path}`, {
    method: 'POST',
    body,
    headers: { authorization: `Bearer ${key}` },
  });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, unknown> };
}

describe('fake Cohere', () => {
  it('answers errors in Cohere shape', async () => {
    expect((await post('/v2/chat', '{', 'k')).json.message).toBe(
      'invalid request: unable to parse JSON body',
    );
    expect(await post('/v2/chat', '{}', 'x')).toMatchObject({
      status: 401,
      json: { message: 'invalid api token' },
    });
    expect((await post('/v2/rerank', '{"query":"q","documents":[{"text":"a"}]}')).json.message).toMatch(
      /strings in v2/,
    );
  });

  it('names every stream event in both the event line and the payload type', async () => {
    const res = await request(`${fake.url}/v2/chat`, {
      method: 'POST',
      headers: { authorization: 'Bearer k' },
      body: JSON.stringify({ stream: true, messages: [] }),
    });
    const events = (await res.body.text()).split('\n\n').filter(Boolean);
    for (const e of events) {
      const [line, data] = e.split('\n');
      expect(JSON.parse(data?.slice(6) ?? '{}').type).toBe(line?.slice(7));
    }
    expect(events.at(-1)).toContain('"finish_reason":"COMPLETE"');
  });

  it('scores by word overlap', () => {
    expect(overlapScore('red apple', 'an apple that is red')).toBe(1);
    expect(overlapScore('red apple', 'green pear')).toBe(0);
  });
});

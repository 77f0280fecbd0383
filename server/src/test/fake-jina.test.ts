import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeJina, startFakeJina } from './fake-jina.js';

let fake: FakeJina;
beforeAll(async () => {
  fake = await startFakeJina({ apiKey: 'k' });
});
afterAll(() => fake.close());

describe('fake Jina', () => {
  it('answers validation errors as FastAPI does', async () => {
    const res = await request(`${fake.url}/v1/rerank`, {
      method: 'POST',
      headers: { authorization: 'Bearer k' },
      body: '{"documents":["a"]}',
    });
    expect(res.statusCode).toBe(422);
    expect(await res.body.json()).toEqual({
      detail: [{ loc: ['body', 'query'], msg: 'Field required', type: 'missing' }],
    });
  });

  it('ranks with documents and a token count', async () => {
    const res = await request(`${fake.url}/v1/rerank`, {
      method: 'POST',
      headers: { authorization: 'Bearer k' },
      body: JSON.stringify({ model: 'm', query: 'tea', documents: ['coffee', 'tea'] }),
    });
    expect(await res.body.json()).toEqual({
      model: 'm',
      usage: { total_tokens: 3 },
      results: [
        { index: 1, document: { text: 'tea' }, relevance_score: 1 },
        { index: 0, document: { text: 'coffee' }, relevance_score: 0 },
      ],
    });
  });
});

import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeJina, startFakeJina } from '../../test/fake-jina.js';
import { parseUpstreamError } from '../openai/errors.js';
import { readRerankRequest } from '../rerank.js';
import { buildJinaRerankRequest, jinaRerankToGateway } from './rerank.js';

let fake: FakeJina;
beforeAll(async () => {
  fake = await startFakeJina({ apiKey: 'jina_key' });
});
afterAll(() => fake.close());

const channel = (key = 'jina_key') => ({ type: 47, baseUrl: fake.url, key, headers: {} });

async function call(body: Record<string, unknown>, key?: string) {
  const req = readRerankRequest(body);
  const r = buildJinaRerankRequest({
    channel: channel(key),
    upstreamModel: 'jina-reranker-v2-base-multilingual',
    request: req,
  });
  const res = await request(r.url, { method: r.method, headers: r.headers, body: r.body as Buffer });
  return { req, r, status: res.statusCode, body: Buffer.from(await res.body.arrayBuffer()) };
}

describe('Jina adapter against the fake', () => {
  it('reranks with the mapped model and reads the token usage', async () => {
    const { req, r, body } = await call({
      model: 'rerank',
      query: 'green tea',
      documents: ['black coffee', { text: 'green tea leaves' }],
      top_n: 1,
    });
    expect(r.url).toBe(`${fake.url}/v1/rerank`);
    expect(fake.requests.at(-1)?.json).toMatchObject({
      model: 'jina-reranker-v2-base-multilingual',
      return_documents: true,
      top_n: 1,
    });
    const out = jinaRerankToGateway(body, req, 'rerank');
    expect(out.response.results).toEqual([
      { index: 1, relevance_score: 1, document: { text: 'green tea leaves' } },
    ]);
    expect(out.usage?.inputTokens).toBe(out.response.usage.prompt_tokens);
    expect(out.usage?.inputTokens).toBeGreaterThan(0);
  });

  it('leaves documents out when asked', async () => {
    const { req, body } = await call({
      model: 'rerank',
      query: 'a',
      documents: ['a', 'b'],
      return_documents: false,
    });
    expect(jinaRerankToGateway(body, req, 'rerank').response.results[0]).toEqual({
      index: 0,
      relevance_score: 1,
    });
  });

  it('reads Jina errors ({detail})', async () => {
    const { status, body } = await call({ model: 'rerank', query: 'a', documents: ['a'] }, 'bad');
    expect(parseUpstreamError(status, body)).toMatchObject({
      status: 401,
      message: 'Unauthorized: Invalid API key',
    });
  });
});

import { generateKeyPairSync } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeVertex, startFakeVertex } from '../../test/fake-vertex.js';
import { readAnthropicJsonUsage } from '../anthropic/json-meter.js';
import { AnthropicStreamMeter } from '../anthropic/stream-meter.js';
import { readGeminiJsonUsage } from '../gemini/json-meter.js';
import { GeminiStreamMeter } from '../gemini/stream-meter.js';
import { GeminiToOpenAiStream } from '../translate/openai-gemini.js';
import type { UpstreamRequest } from '../upstream-request.js';
import { VertexTokenCache } from './access-token.js';
import { parseVertexError } from './errors.js';
import { buildVertexRequest } from './request.js';

// The adapter against the fake token endpoint and Vertex API over real HTTP (undici).

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const EMAIL = 'gw@proj-9.iam.gserviceaccount.com';
let fake: FakeVertex;
let key: string;
let tokens: VertexTokenCache;

beforeAll(async () => {
  fake = await startFakeVertex({ publicKey, clientEmail: EMAIL });
  key = JSON.stringify({
    type: 'service_account',
    project_id: 'proj-9',
    private_key_id: 'k1',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: EMAIL,
    token_uri: fake.tokenUri,
  });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  tokens = new VertexTokenCache();
});

const channel = () => ({ type: 42, baseUrl: fake.url, key, other: 'us-east5', headers: {} });

async function send(r: UpstreamRequest) {
  const res = await request(r.url, { method: r.method, headers: r.headers, body: r.body as Buffer });
  return res;
}

describe('Vertex adapter against the fake', () => {
  it('generates with Gemini and reads usage with thoughts', async () => {
    fake.setScenario({ kind: 'ok', content: 'Bonjour', promptTokens: 5, thoughtsTokens: 7 });
    const r = await buildVertexRequest(
      {
        channel: channel(),
        upstreamModel: 'gemini-2.5-pro',
        body: { kind: 'object', value: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] } },
        stream: false,
      },
      tokens,
    );
    const res = await send(r);
    expect(res.statusCode).toBe(200);
    const usage = readGeminiJsonUsage(Buffer.from(await res.body.arrayBuffer()));
    expect(usage).toMatchObject({ inputTokens: 5, outputTokens: 8, reasoningTokens: 7 });
    expect(fake.requests[0]).toMatchObject({
      project: 'proj-9',
      region: 'us-east5',
      publisher: 'google',
      action: 'generateContent',
    });
  });

  it('streams Gemini SSE that the Gemini -> OpenAI translator reads', async () => {
    fake.setScenario({ kind: 'ok', content: 'one two three' });
    const r = await buildVertexRequest(
      {
        channel: channel(),
        upstreamModel: 'gemini-2.5-flash',
        body: { kind: 'object', value: { contents: [] } },
        stream: true,
      },
      tokens,
    );
    const res = await send(r);
    const meter = new GeminiStreamMeter();
    const tr = new GeminiToOpenAiStream({ model: 'gemini-2.5-flash', includeUsage: true, created: 1 });
    const out: Buffer[] = [];
    for await (const chunk of res.body) out.push(tr.write(meter.write(chunk as Buffer)));
    out.push(tr.end());
    expect(meter.done).toBe(true);
    expect(meter.usage).toMatchObject({ inputTokens: 8, outputTokens: 3 });
    const text = Buffer.concat(out)
      .toString()
      .split('\n\n')
      .filter((l) => l.startsWith('data: {'))
      .map((l) => JSON.parse(l.slice(6)).choices?.[0]?.delta?.content ?? '')
      .join('');
    expect(text).toBe('one two three');
  });

  it('runs Claude through rawPredict and streamRawPredict', async () => {
    fake.setScenario({
      kind: 'ok',
      content: 'Claude here',
      inputTokens: 4,
      cacheWriteTokens: 6,
      toolCalls: [{ name: 'f', input: { a: 1 } }],
    });
    const value = { model: 'claude', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] };
    const plain = await send(
      await buildVertexRequest(
        {
          channel: channel(),
          upstreamModel: 'claude-sonnet-4@20250514',
          body: { kind: 'object', value },
          stream: false,
        },
        tokens,
      ),
    );
    expect(plain.statusCode).toBe(200);
    expect(readAnthropicJsonUsage(Buffer.from(await plain.body.arrayBuffer()))).toMatchObject({
      inputTokens: 10,
      cacheWriteTokens: 6,
    });
    const streamed = await send(
      await buildVertexRequest(
        {
          channel: channel(),
          upstreamModel: 'claude-sonnet-4@20250514',
          body: { kind: 'object', value: { ...value, stream: true } },
          stream: true,
        },
        tokens,
      ),
    );
    const meter = new AnthropicStreamMeter();
    for await (const chunk of streamed.body) meter.write(chunk as Buffer);
    meter.end();
    expect(meter.done).toBe(true);
    expect(meter.stopReason).toBe('tool_use');
    expect(fake.requests.map((q) => q.action)).toEqual(['rawPredict', 'streamRawPredict']);
    // One token for both calls.
    expect(tokens.exchanges).toBe(1);
  });

  it('reads a Google error body and a refused token', async () => {
    fake.setScenario({
      kind: 'error',
      status: 429,
      googleStatus: 'RESOURCE_EXHAUSTED',
      message: 'Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute',
    });
    const r = await buildVertexRequest(
      {
        channel: channel(),
        upstreamModel: 'gemini-2.5-pro',
        body: { kind: 'object', value: { contents: [] } },
        stream: false,
      },
      tokens,
    );
    const res = await send(r);
    expect(parseVertexError(res.statusCode, Buffer.from(await res.body.arrayBuffer()))).toMatchObject({
      status: 429,
      type: 'RESOURCE_EXHAUSTED',
      message: expect.stringContaining('Quota exceeded'),
    });
    fake.revokeTokens();
    fake.setScenario({ kind: 'ok' });
    const again = await send(
      await buildVertexRequest(
        {
          channel: channel(),
          upstreamModel: 'gemini-2.5-pro',
          body: { kind: 'object', value: { contents: [] } },
          stream: false,
        },
        tokens,
      ),
    );
    expect(parseVertexError(again.statusCode, Buffer.from(await again.body.arrayBuffer()))).toMatchObject({
      status: 401,
      type: 'UNAUTHENTICATED',
    });
  });

  it('reads an Anthropic-shaped error from a Claude model', () => {
    expect(
      parseVertexError(
        400,
        '{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}}',
      ),
    ).toMatchObject({
      type: 'invalid_request_error',
      message: 'max_tokens: too large',
    });
  });
});

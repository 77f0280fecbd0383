import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeCohere, startFakeCohere } from '../../test/fake-cohere.js';
import { readRerankRequest } from '../rerank.js';
import type { UpstreamRequest } from '../upstream-request.js';
import { cohereToOpenAiResponse } from './chat.js';
import { parseCohereError } from './errors.js';
import { buildCohereChatRequest, buildCohereRerankRequest } from './request.js';
import { cohereRerankToGateway } from './rerank.js';
import { CohereToOpenAiStream } from './stream.js';

let fake: FakeCohere;
beforeAll(async () => {
  fake = await startFakeCohere({ apiKey: 'co-key' });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const channel = (key = 'co-key') => ({ type: 36, baseUrl: `${fake.url}/v2`, key, headers: {} });
const send = (r: UpstreamRequest) =>
  request(r.url, { method: r.method, headers: r.headers, body: r.body as Buffer });

function chunks(sse: string) {
  return sse
    .split('\n\n')
    .filter((l) => l.startsWith('data: {'))
    .map((l) => JSON.parse(l.slice(6)));
}

describe('Cohere adapter against the fake', () => {
  it('chats as JSON: OpenAI reply with usage', async () => {
    const r = buildCohereChatRequest({
      channel: channel(),
      upstreamModel: 'command-a-03-2025',
      body: { model: 'cmd', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(r.url).toBe(`${fake.url}/v2/chat`);
    const res = await send(r);
    const reply = cohereToOpenAiResponse(await res.body.json(), { model: 'cmd' });
    expect(reply.choices[0]?.message.content).toBe('Hello from the fake Cohere API.');
    expect(reply.usage).toMatchObject({ prompt_tokens: 209, completion_tokens: 8 });
    expect(fake.requests[0]?.json.model).toBe('command-a-03-2025');
  });

  it('streams text and tool calls whose arguments reassemble, in any chunking', async () => {
    fake.setScenario({
      kind: 'ok',
      content: 'Let me look.',
      toolCalls: [{ name: 'look', arguments: '{"where":"here"}' }],
    });
    const r = buildCohereChatRequest({
      channel: channel(),
      upstreamModel: 'command-a',
      body: {
        model: 'cmd',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'hi' }],
      },
    });
    const res = await send(r);
    const raw = Buffer.from(await res.body.arrayBuffer());
    for (const size of [1, 13, raw.length]) {
      const tr = new CohereToOpenAiStream({ model: 'cmd', includeUsage: true, created: 1 });
      const out: Buffer[] = [];
      for (let i = 0; i < raw.length; i += size) out.push(tr.write(raw.subarray(i, i + size)));
      out.push(tr.end());
      const text = Buffer.concat(out).toString();
      const cs = chunks(text);
      expect(cs.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('Let me look.');
      const call = cs.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
      expect(call[0]).toMatchObject({
        index: 0,
        id: 'call_2_0',
        type: 'function',
        function: { name: 'look' },
      });
      expect(
        JSON.parse(call.map((t: { function: { arguments: string } }) => t.function.arguments).join('')),
      ).toEqual({ where: 'here' });
      expect(cs.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('tool_calls');
      expect(cs.at(-1).usage).toMatchObject({ prompt_tokens: 209, completion_tokens: 6 });
      expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
      expect(tr.completed).toBe(true);
      expect(tr.usage).toMatchObject({ inputTokens: 209, outputTokens: 6 });
      expect(tr.completionText()).toContain('I will call the tool.');
    }
  });

  it('reranks: the gateway shape with documents echoed and the relay-counted usage', async () => {
    const req = readRerankRequest({
      model: 'rerank-v3.5',
      query: 'capital of france',
      documents: ['Berlin is in Germany', 'Paris is the capital of France', 'France has wine'],
      top_n: 2,
    });
    const r = buildCohereRerankRequest({ channel: channel(), upstreamModel: 'rerank-v3.5', request: req });
    const res = await send(r);
    expect(fake.requests[0]?.json).toEqual({
      model: 'rerank-v3.5',
      query: 'capital of france',
      documents: req.documents,
      top_n: 2,
    });
    const out = cohereRerankToGateway(Buffer.from(await res.body.arrayBuffer()), req, 'rerank-v3.5', 17);
    expect(out.searchUnits).toBe(1);
    expect(out.response).toEqual({
      model: 'rerank-v3.5',
      results: [
        { index: 1, relevance_score: 1, document: { text: 'Paris is the capital of France' } },
        { index: 2, relevance_score: 0.333, document: { text: 'France has wine' } },
      ],
      usage: { prompt_tokens: 17, total_tokens: 17 },
    });
  });

  it('reads Cohere errors', async () => {
    const denied = await send(
      buildCohereChatRequest({
        channel: channel('wrong'),
        upstreamModel: 'c',
        body: { messages: [{ role: 'user', content: 'x' }] },
      }),
    );
    expect(parseCohereError(denied.statusCode, Buffer.from(await denied.body.arrayBuffer()))).toEqual({
      status: 401,
      message: 'invalid api token',
      type: 'authentication_error',
      code: null,
      param: null,
    });
    fake.setScenario({
      kind: 'error',
      status: 429,
      message: 'You are using a Trial key, which is limited to 10 API calls / minute.',
    });
    const limited = await send(
      buildCohereChatRequest({
        channel: channel(),
        upstreamModel: 'c',
        body: { messages: [{ role: 'user', content: 'x' }] },
      }),
    );
    expect(parseCohereError(429, Buffer.from(await limited.body.arrayBuffer()))).toMatchObject({
      type: 'rate_limit_error',
    });
  });
});

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeAnthropic, fakeAnthropicErrors, startFakeAnthropic } from '../../test/fake-anthropic.js';
import { type FakeUpstream, fakeErrors, startFakeUpstream } from '../../test/fake-upstream.js';
import { anthropicErrorBody, parseAnthropicError } from '../anthropic/errors.js';
import { buildAnthropicRequest } from '../anthropic/request.js';
import { parseUpstreamError } from '../openai/errors.js';
import { buildOpenAiRequest } from '../openai/request.js';
import type { UpstreamRequest } from '../upstream-request.js';
import { isRecord, type JsonRecord } from './json-reading.js';
import {
  AnthropicToOpenAiStream,
  anthropicToOpenAiRequest,
  anthropicToOpenAiResponse,
  OpenAiToAnthropicStream,
  openAiToAnthropicRequest,
  openAiToAnthropicResponse,
} from './openai-anthropic.js';
import type { StreamTranslator } from './stream-translator.js';

// The translators between the official clients and the fake upstreams, joined by two tiny local
// servers that do what the relay will do (translate the request, build the upstream request, pipe
// the reply through a stream translator). The official `openai` client parsing what the
// Anthropic->OpenAI translator writes, and `@anthropic-ai/sdk` parsing what the OpenAI->Anthropic
// one writes, prove both outputs are the real formats.

const ANTHROPIC_KEY = 'sk-ant-upstream';
const OPENAI_KEY = 'sk-openai-upstream';

let anthropicUpstream: FakeAnthropic;
let openAiUpstream: FakeUpstream;
let openAiFront: Server;
let anthropicFront: Server;
let openai: OpenAI;
let claude: Anthropic;

async function readJson(req: IncomingMessage): Promise<JsonRecord> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const v = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  return isRecord(v) ? v : {};
}

async function send(up: UpstreamRequest) {
  return request(up.url, { method: up.method, headers: up.headers, body: up.body as Buffer | undefined });
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function pipeStream(res: ServerResponse, body: AsyncIterable<unknown>, t: StreamTranslator) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for await (const c of body) {
    const out = t.write(c as Buffer);
    if (out.length) res.write(out);
  }
  res.end(t.end());
}

/** Speaks OpenAI chat/completions to the client, Anthropic Messages to the upstream. */
async function openAiToAnthropicChannel(req: IncomingMessage, res: ServerResponse) {
  const body = await readJson(req);
  const model = String(body.model);
  const translated = openAiToAnthropicRequest(body, { model, defaultMaxTokens: { default: 4096 } });
  const up = await send(
    buildAnthropicRequest({
      channel: { type: 14, baseUrl: anthropicUpstream.url, key: ANTHROPIC_KEY, headers: {} },
      endpoint: 'messages',
      upstreamModel: model,
      body: { kind: 'object', value: translated },
    }),
  );
  if (up.statusCode >= 400) {
    const error = parseAnthropicError(up.statusCode, Buffer.from(await up.body.arrayBuffer()));
    json(res, error.status, {
      error: { message: error.message, type: error.type, code: error.code, param: null },
    });
    return;
  }
  if (body.stream === true) {
    const includeUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
    await pipeStream(res, up.body, new AnthropicToOpenAiStream({ model, includeUsage }));
    return;
  }
  json(res, 200, anthropicToOpenAiResponse((await up.body.json()) as JsonRecord, { model }));
}

/** Speaks Anthropic Messages to the client, OpenAI chat/completions to the upstream. */
async function anthropicToOpenAiChannel(req: IncomingMessage, res: ServerResponse) {
  const body = await readJson(req);
  const model = String(body.model);
  const translated = anthropicToOpenAiRequest(body, { model }) as unknown as JsonRecord;
  const up = await send(
    buildOpenAiRequest({
      channel: { type: 1, baseUrl: openAiUpstream.url, key: OPENAI_KEY, other: '' },
      endpoint: 'chat/completions',
      upstreamModel: model,
      body: { kind: 'json', raw: Buffer.from(JSON.stringify(translated)), value: translated },
    }),
  );
  if (up.statusCode >= 400) {
    const error = parseUpstreamError(up.statusCode, Buffer.from(await up.body.arrayBuffer()));
    json(res, error.status, anthropicErrorBody(error));
    return;
  }
  if (body.stream === true) {
    await pipeStream(res, up.body, new OpenAiToAnthropicStream({ model }));
    return;
  }
  json(res, 200, openAiToAnthropicResponse((await up.body.json()) as JsonRecord, { model }));
}

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<Server> {
  const server = createServer((req, res) => {
    handler(req, res).catch((err: unknown) => json(res, 500, { error: { message: String(err) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function urlOf(server: Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  anthropicUpstream = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
  openAiUpstream = await startFakeUpstream({ apiKey: OPENAI_KEY });
  openAiFront = await listen(openAiToAnthropicChannel);
  anthropicFront = await listen(anthropicToOpenAiChannel);
  openai = new OpenAI({ apiKey: 'client-key', baseURL: `${urlOf(openAiFront)}/v1`, maxRetries: 0 });
  claude = new Anthropic({ apiKey: 'client-key', baseURL: urlOf(anthropicFront), maxRetries: 0 });
});

afterAll(async () => {
  for (const s of [openAiFront, anthropicFront])
    await new Promise<void>((resolve) => s.close(() => resolve()));
  await anthropicUpstream.close();
  await openAiUpstream.close();
});

beforeEach(() => {
  anthropicUpstream.reset();
  openAiUpstream.reset();
});

const weatherTool: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('the openai client through an Anthropic channel', () => {
  it('streams a tool-using answer: the SDK reassembles the argument fragments', async () => {
    anthropicUpstream.setScenario({
      kind: 'ok',
      thinking: 'Two cities, so two calls.',
      content: 'Checking.',
      toolCalls: [
        { name: 'get_weather', input: { city: 'Paris' } },
        { name: 'get_weather', input: { city: 'Oslo' } },
      ],
      chunks: 3,
      inputTokens: 20,
      cacheReadTokens: 1000,
      outputTokens: 60,
    });
    const stream = openai.chat.completions.stream({
      model: 'claude-sonnet-4-6',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris and Oslo?' },
      ],
      tools: [weatherTool],
      reasoning_effort: 'low',
      stream_options: { include_usage: true },
    });
    let reasoning = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { reasoning_content?: string } | undefined;
      reasoning += delta?.reasoning_content ?? '';
    }
    const completion = await stream.finalChatCompletion();
    const choice = completion.choices[0];
    expect(reasoning).toBe('Two cities, so two calls.');
    expect(choice?.message.content).toBe('Checking.');
    expect(choice?.finish_reason).toBe('tool_calls');
    const calls = (choice?.message.tool_calls ?? []).map((c) =>
      c.type === 'function' ? { id: c.id, name: c.function.name, arguments: c.function.arguments } : null,
    );
    expect(calls).toEqual([
      { id: expect.stringMatching(/^toolu_/), name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: expect.stringMatching(/^toolu_/), name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ]);
    expect(completion.usage).toMatchObject({
      prompt_tokens: 1020,
      completion_tokens: 60,
      prompt_tokens_details: { cached_tokens: 1000 },
    });
    // The upstream got a real Messages request: system on top, tools, a thinking budget.
    const sent = anthropicUpstream.requests[0]?.json;
    expect(sent).toMatchObject({
      model: 'claude-sonnet-4-6',
      system: [{ type: 'text', text: 'Be brief.' }],
      max_tokens: 4096,
      stream: true,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      tools: [{ name: 'get_weather' }],
    });
  });

  it('continues the conversation with tool results, and answers without streaming', async () => {
    anthropicUpstream.setScenario({
      kind: 'ok',
      content: 'Paris is warmer.',
      inputTokens: 50,
      outputTokens: 5,
    });
    const completion = await openai.chat.completions.create({
      model: 'claude-sonnet-4-6',
      messages: [
        { role: 'user', content: 'Weather in Paris and Oslo?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'toolu_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
            {
              id: 'toolu_2',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: '18C' },
        { role: 'tool', tool_call_id: 'toolu_2', content: '2C' },
      ],
      tools: [weatherTool],
    });
    expect(completion.choices[0]?.message.content).toBe('Paris is warmer.');
    expect(completion.usage).toMatchObject({ prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 });
    expect(anthropicUpstream.requests[0]?.json?.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Oslo?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Oslo' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '18C' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: '2C' },
        ],
      },
    ]);
  });

  it('sees an Anthropic rate limit as an OpenAI-style 429', async () => {
    anthropicUpstream.setScenario(fakeAnthropicErrors.rateLimited());
    const failure = await openai.chat.completions
      .create({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).message).toMatch(/rate limit/);
  });
});

describe('the Anthropic SDK through an OpenAI channel', () => {
  it('streams a tool-using answer the SDK assembles into thinking and tool_use blocks', async () => {
    openAiUpstream.setScenario({
      kind: 'ok',
      reasoning: 'I need the weather tool.',
      toolCalls: [
        { name: 'get_weather', arguments: '{"city":"Paris"}' },
        { name: 'get_weather', arguments: '{"city":"Oslo"}' },
      ],
      chunks: 3,
      promptTokens: 300,
      cachedTokens: 256,
      completionTokens: 45,
    });
    const stream = claude.messages.stream({
      model: 'gpt-4o',
      max_tokens: 1024,
      system: 'Be brief.',
      tools: [
        {
          name: 'get_weather',
          description: 'Weather for a city',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
      messages: [{ role: 'user', content: 'Weather in Paris and Oslo?' }],
    });
    const message = await stream.finalMessage();
    expect(message.model).toBe('gpt-4o');
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'I need the weather tool.', signature: '' },
      { type: 'tool_use', id: expect.any(String), name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: expect.any(String), name: 'get_weather', input: { city: 'Oslo' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toMatchObject({
      input_tokens: 44,
      cache_read_input_tokens: 256,
      output_tokens: 45,
    });
    // The upstream got a chat request asking for the usage chunk.
    expect(openAiUpstream.requests[0]?.json).toMatchObject({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris and Oslo?' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 1024,
    });
  });

  it('answers without streaming and continues with tool results', async () => {
    openAiUpstream.setScenario({
      kind: 'ok',
      content: 'Paris is warmer.',
      promptTokens: 80,
      completionTokens: 4,
    });
    const message = await claude.messages.create({
      model: 'gpt-4o',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: '18C' }] },
      ],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Paris is warmer.' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: 80, output_tokens: 4 });
    expect(openAiUpstream.requests[0]?.json?.messages).toEqual([
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '18C' },
    ]);
  });

  it('sees an OpenAI rate limit as an Anthropic RateLimitError', async () => {
    openAiUpstream.setScenario(fakeErrors.rateLimited());
    const failure = await claude.messages
      .create({ model: 'gpt-4o', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Anthropic.RateLimitError);
    expect((failure as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
      error: { type: 'rate_limit_error' },
    });
  });
});

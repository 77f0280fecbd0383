import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicStreamMeter } from '../providers/anthropic/stream-meter.js';
import { type FakeAnthropic, fakeAnthropicErrors, startFakeAnthropic } from './fake-anthropic.js';

// The official SDK parsing the fake's replies proves the fake speaks the real wire format.

const KEY = 'sk-ant-fake-key';

let fake: FakeAnthropic;
let client: Anthropic;

beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKey: KEY });
  client = new Anthropic({ apiKey: KEY, baseURL: fake.url, maxRetries: 0 });
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => {
  fake.reset();
});

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('fake Anthropic upstream driven by the official SDK', () => {
  it('answers a Message and records the request with its headers', async () => {
    fake.setScenario({ kind: 'ok', content: 'Bonjour tout le monde', inputTokens: 12, cacheReadTokens: 100 });
    const msg = await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    expect(msg.type).toBe('message');
    expect(msg.content).toEqual([{ type: 'text', text: 'Bonjour tout le monde' }]);
    expect(msg.stop_reason).toBe('end_turn');
    expect(msg.usage).toMatchObject({ input_tokens: 12, cache_read_input_tokens: 100, output_tokens: 4 });
    const rec = fake.requests[0];
    expect(rec?.path).toBe('/v1/messages');
    expect(rec?.apiKey).toBe(KEY);
    expect(rec?.version).toBe('2023-06-01');
    expect(rec?.json?.messages).toEqual([{ role: 'user', content: 'Say hello' }]);
  });

  it('streams thinking with its signature, text and tool_use input the SDK reassembles', async () => {
    fake.setScenario({
      kind: 'ok',
      thinking: 'The user wants the weather in two cities.',
      content: 'Let me check both.',
      toolCalls: [
        { name: 'get_weather', input: { city: 'Paris' } },
        { name: 'get_weather', input: { city: 'Oslo', details: { wind: true } } },
      ],
      chunks: 4,
      inputTokens: 40,
      cacheWriteTokens: 500,
      outputTokens: 77,
    });
    const stream = client.messages.stream({
      model: 'claude-sonnet-4-6',
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      tools: [weatherTool],
      messages: [{ role: 'user', content: 'Weather in Paris and Oslo?' }],
    });
    const types: string[] = [];
    stream.on('streamEvent', (e) => types.push(e.type));
    const msg = await stream.finalMessage();
    expect(msg.content).toEqual([
      {
        type: 'thinking',
        thinking: 'The user wants the weather in two cities.',
        signature: expect.any(String),
      },
      { type: 'text', text: 'Let me check both.' },
      {
        type: 'tool_use',
        id: expect.stringMatching(/^toolu_/),
        name: 'get_weather',
        input: { city: 'Paris' },
      },
      {
        type: 'tool_use',
        id: expect.stringMatching(/^toolu_/),
        name: 'get_weather',
        input: { city: 'Oslo', details: { wind: true } },
      },
    ]);
    const thinking = msg.content[0];
    expect(thinking?.type === 'thinking' && thinking.signature.length).toBeGreaterThan(20);
    expect(msg.stop_reason).toBe('tool_use');
    expect(msg.usage).toMatchObject({
      input_tokens: 40,
      cache_creation_input_tokens: 500,
      output_tokens: 77,
    });
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(types.filter((t) => t === 'content_block_start')).toHaveLength(4);
  });

  it('turns error scenarios into the SDK error classes', async () => {
    const call = () =>
      client.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
      });
    fake.setScenario(fakeAnthropicErrors.rateLimited(), { times: 1 });
    await expect(call()).rejects.toBeInstanceOf(Anthropic.RateLimitError);
    fake.setScenario(fakeAnthropicErrors.overloaded(), { times: 1 });
    const overloaded = await call().catch((e: unknown) => e);
    expect(overloaded).toBeInstanceOf(APIError);
    expect((overloaded as APIError).status).toBe(529);
    expect((overloaded as APIError).error).toMatchObject({
      type: 'error',
      error: { type: 'overloaded_error' },
    });
    const badKey = new Anthropic({ apiKey: 'wrong', baseURL: fake.url, maxRetries: 0 });
    await expect(
      badKey.messages.create({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    await expect(client.messages.create({ model: 'm', max_tokens: 1, messages: [] })).rejects.toBeInstanceOf(
      Anthropic.BadRequestError,
    );
  });

  it('sends an error event mid-stream, which the SDK raises', async () => {
    fake.setScenario({ kind: 'ok', content: 'one two three four', errorAfterEvents: 4 });
    const stream = await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 10,
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const e of stream) seen.push(e.type);
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['message_start', 'content_block_start', 'content_block_delta']);
    expect(failure).toBeInstanceOf(APIError);
    expect(String((failure as Error).message)).toMatch(/Overloaded/);
  });

  it('counts tokens and lists models', async () => {
    const count = await client.messages.countTokens({
      model: 'claude-sonnet-4-6',
      messages: [{ role: 'user', content: 'How many tokens is this?' }],
    });
    expect(count.input_tokens).toBeGreaterThan(0);
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(['claude-sonnet-4-6', 'claude-opus-4-1', 'claude-haiku-4-5']);
  });
});

describe('passthrough of an Anthropic stream through the meter', () => {
  let proxy: Server;
  let proxyUrl = '';
  const meters: AnthropicStreamMeter[] = [];
  const upstreamBytes: Buffer[] = [];

  beforeAll(async () => {
    // A stand-in for the relay's passthrough: every upstream chunk goes through the meter to the client.
    proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const up = await request(`${fake.url}${req.url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
        body: Buffer.concat(chunks),
      });
      res.writeHead(up.statusCode, { 'content-type': String(up.headers['content-type']) });
      const meter = new AnthropicStreamMeter();
      meters.push(meter);
      for await (const c of up.body) {
        const chunk = c as Buffer;
        upstreamBytes.push(Buffer.from(chunk));
        res.write(meter.write(chunk));
      }
      meter.end();
      res.end();
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
  });

  it('leaves the bytes unchanged for the SDK and reads the usage on the way', async () => {
    fake.setScenario({
      kind: 'ok',
      thinking: 'Hmm.',
      content: 'Answer.',
      toolCalls: [{ name: 'get_weather', input: { city: 'Rome' } }],
      inputTokens: 9,
      cacheReadTokens: 1000,
      outputTokens: 42,
    });
    const direct = new Anthropic({ apiKey: 'unused', baseURL: proxyUrl, maxRetries: 0 });
    const raw = await direct.messages
      .create({
        model: 'claude-sonnet-4-6',
        max_tokens: 100,
        stream: true,
        tools: [weatherTool],
        messages: [{ role: 'user', content: 'x' }],
      })
      .asResponse();
    const received = Buffer.from(await raw.arrayBuffer());
    expect(received.equals(Buffer.concat(upstreamBytes))).toBe(true);
    const meter = meters[0];
    expect(meter?.usage).toMatchObject({ inputTokens: 1009, cachedReadTokens: 1000, outputTokens: 42 });
    expect(meter?.done).toBe(true);
    expect(meter?.stopReason).toBe('tool_use');
  });
});

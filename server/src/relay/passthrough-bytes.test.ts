import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createChannel, createToken, settled } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../test/test-app.js';

// Same dialect on both sides: what the client sends reaches the upstream byte for byte, and what
// the upstream answers reaches the client byte for byte (odd spacing, CRLF framing, comments and
// all), while usage is still read from it for billing. The upstream here is a recorder that
// answers fixed bytes, so nothing but the gateway can change them.

interface Recorded {
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

const ANTHROPIC_STREAM = [
  'event: message_start\r\ndata: {"type":"message_start","message":{"id":"msg_p","type":"message","role":"assistant","model":"claude-pass","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":20,"cache_read_input_tokens":10,"cache_creation_input_tokens":0,"output_tokens":1}}}\r\n\r\n',
  ': keep-alive comment\r\n\r\n',
  'event: content_block_start\r\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}\r\n\r\n',
  'event: content_block_delta\r\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}\r\n\r\n',
  'event: content_block_delta\r\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"ErUBCkYIBRgCIkB+/=exact=="}}\r\n\r\n',
  'event: content_block_stop\r\ndata: {"type":"content_block_stop","index":0}\r\n\r\n',
  'event: content_block_start\r\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}\r\n\r\n',
  'event: content_block_delta\r\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"héllo  "}}\r\n\r\n',
  'event: content_block_stop\r\ndata: {"type":"content_block_stop","index":1}\r\n\r\n',
  'event: message_delta\r\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}\r\n\r\n',
  'event: message_stop\r\ndata: {"type":"message_stop"}\r\n\r\n',
].join('');

const GEMINI_STREAM = [
  'data: {"candidates": [{"content": {"parts": [{"text": "Bon"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"candidatesTokenCount": 1,"totalTokenCount": 13},"modelVersion": "gemini-pass"}\r\n\r\n',
  'data: {"candidates": [{"content": {"parts": [{"text": "jour"}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 12,"candidatesTokenCount": 2,"thoughtsTokenCount": 3,"totalTokenCount": 17},"modelVersion": "gemini-pass"}\r\n\r\n',
].join('');

const RESPONSES_STREAM = [
  'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_p","object":"response","status":"in_progress","output":[]}}\n\n',
  'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_p","output_index":0,"content_index":0,"delta":"Hi"}\n\n',
  'event: response.completed\ndata: {"type":"response.completed","sequence_number":2,"response":{"id":"resp_p","object":"response","status":"completed","output":[],"usage":{"input_tokens":30,"input_tokens_details":{"cached_tokens":10},"output_tokens":6,"output_tokens_details":{"reasoning_tokens":2},"total_tokens":36}}}\n\n',
].join('');

const CHAT_STREAM = [
  'data: {"id":"chatcmpl-p","object":"chat.completion.chunk","created":1,"model":"gpt-pass","choices":[{"index":0,"delta":{"content":"Hi  "},"finish_reason":null}]}\n\n',
  'data: {"id":"chatcmpl-p","object":"chat.completion.chunk","created":1,"model":"gpt-pass","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n',
  'data: {"id":"chatcmpl-p","object":"chat.completion.chunk","created":1,"model":"gpt-pass","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}\n\n',
  'data: [DONE]\n\n',
].join('');

describe('passthrough keeps bytes', () => {
  let t: TestApp;
  let upstream: Server;
  let upstreamUrl: string;
  const recorded: Recorded[] = [];
  let key: string;
  let userId: number;

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '';
        recorded.push({ path, headers: req.headers, body: Buffer.concat(chunks) });
        const body = path.includes('/messages')
          ? ANTHROPIC_STREAM
          : path.includes(':streamGenerateContent')
            ? GEMINI_STREAM
            : path.endsWith('/responses')
              ? RESPONSES_STREAM
              : CHAT_STREAM;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // Split mid-event and mid-character to prove framing does not matter.
        const bytes = Buffer.from(body);
        res.write(bytes.subarray(0, 101));
        res.write(bytes.subarray(101, 233));
        res.end(bytes.subarray(233));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const root = await t.signIn('root', ROOT_PASSWORD);
    for (const model of ['claude-pass', 'gemini-pass', 'gpt-pass']) {
      const res = await t.call({
        method: 'POST',
        url: '/api/prices/single',
        headers: { cookie: root },
        payload: {
          model,
          type: 'tokens',
          channel_type: 1,
          input: 2,
          output: 4,
          extra_ratios: { reasoning_tokens: 2 },
        },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    await createChannel(t, root, {
      name: 'a',
      type: 14,
      key: 'sk-ant-x',
      base_url: upstreamUrl,
      models: ['claude-pass'],
    });
    await createChannel(t, root, {
      name: 'g',
      type: 25,
      key: 'AIza-x',
      base_url: upstreamUrl,
      models: ['gemini-pass'],
    });
    await createChannel(t, root, {
      name: 'o',
      type: 1,
      key: 'sk-x',
      base_url: upstreamUrl,
      models: ['gpt-pass'],
    });
    userId = await registerUser(t, 'passuser');
    await t.s.repos.users.update(userId, { quota: 1_000_000 });
    key = (await createToken(t, await t.signIn('passuser', 'password-123'))).key;
  });
  afterAll(async () => {
    await t?.close();
    await new Promise<void>((resolve) => upstream?.close(() => resolve()));
  });
  beforeEach(() => {
    recorded.length = 0;
  });

  const gateway = () => `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const billed = async () => {
    await settled(t);
    return t.s.database.db
      .selectFrom('logs')
      .select(['quota', 'prompt_tokens', 'completion_tokens'])
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
  };

  it('Anthropic Messages', async () => {
    const body =
      '{"model":"claude-pass",  "max_tokens":64,"stream":true,"messages":[{"role":"user","content":"h\\u00e9"},{"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":"ErUBCkYI+/=="}]}]}';
    const res = await fetch(`${gateway()}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body,
    });
    expect(await res.text()).toBe(ANTHROPIC_STREAM);
    expect(recorded[0]?.body.toString('utf8')).toBe(body);
    expect(recorded[0]?.headers['x-api-key']).toBe('sk-ant-x');
    // (20 + 10 cached) x 2 - 10 x 2 x 0.9 + 7 x 4 = 60 - 18 + 28 = 70
    expect(await billed()).toMatchObject({ quota: 70, prompt_tokens: 30, completion_tokens: 7 });
  });

  it('Gemini streamGenerateContent', async () => {
    const body = '{"contents":[{"parts":[{"text":"salut"}]}] ,"generation_config":{"temperature":1}}';
    const res = await fetch(`${gateway()}/v1beta/models/gemini-pass:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
      body,
    });
    expect(await res.text()).toBe(GEMINI_STREAM);
    expect(recorded[0]?.body.toString('utf8')).toBe(body);
    expect(recorded[0]?.path).toBe('/v1beta/models/gemini-pass:streamGenerateContent?alt=sse');
    // 12 x 2 + (2 + 3 thoughts) x 4 + 3 reasoning x 4 x (2 - 1) = 24 + 20 + 12 = 56
    expect(await billed()).toMatchObject({ quota: 56, prompt_tokens: 12, completion_tokens: 5 });
  });

  it('OpenAI chat that asked for usage itself', async () => {
    const body =
      '{"model":"gpt-pass","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}';
    const res = await fetch(`${gateway()}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    expect(await res.text()).toBe(CHAT_STREAM);
    expect(recorded[0]?.body.toString('utf8')).toBe(body);
    expect(await billed()).toMatchObject({ quota: 9 * 2 + 2 * 4, prompt_tokens: 9 });
  });

  it('Responses API to a channel the catalog says serves it natively', async () => {
    const body = '{"model":"gpt-pass", "input":"hi","stream":true}';
    const res = await fetch(`${gateway()}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    expect(await res.text()).toBe(RESPONSES_STREAM);
    expect(recorded[0]?.path).toBe('/v1/responses');
    expect(recorded[0]?.body.toString('utf8')).toBe(body);
    // 30 x 2 - 10 x 2 x 0.9 + 6 x 4 + 2 x 4 = 60 - 18 + 24 + 8 = 74
    expect(await billed()).toMatchObject({ quota: 74, prompt_tokens: 30, completion_tokens: 6 });
  });

  it('answers 502 and charges nothing when a reply cannot be translated', async () => {
    const quota = async () => (await t.s.repos.users.byId(userId))!.quota;
    await settled(t);
    const before = await quota();
    // Not streaming, but this upstream answers SSE: no Message to translate into a chat.completion.
    const res = await fetch(`${gateway()}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-pass', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: { code: 'upstream_bad_reply' } });
    await settled(t);
    expect(await quota()).toBe(before);
  });
});

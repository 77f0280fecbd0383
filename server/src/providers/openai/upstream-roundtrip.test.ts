import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emptyUsage } from '../../billing/pricing/usage.js';
import { type FakeUpstream, fakeErrors, startFakeUpstream } from '../../test/fake-upstream.js';
import { TokenCounter } from '../token-counter.js';
import type { UpstreamRequest } from '../upstream-request.js';
import { parseUpstreamError } from './errors.js';
import { readJsonUsage } from './json-meter.js';
import { buildOpenAiRequest, type InboundBody, type OpenAiChannel } from './request.js';
import { OpenAiStreamMeter } from './stream-meter.js';

// The adapter's pieces together against a real socket: build the request, send it with undici,
// meter the reply as the relay will.

const KEY = 'sk-channel-key';
let fake: FakeUpstream;
let channel: OpenAiChannel;

beforeAll(async () => {
  fake = await startFakeUpstream({ apiKey: KEY });
  channel = { type: 1, baseUrl: fake.url, key: KEY, other: '' };
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => {
  fake.reset();
});

function json(value: Record<string, unknown>): InboundBody {
  return { kind: 'json', raw: Buffer.from(JSON.stringify(value)), value };
}

async function send(req: UpstreamRequest) {
  return request(req.url, { method: req.method, headers: req.headers, body: req.body ?? null });
}

async function relayStream(req: UpstreamRequest) {
  const res = await send(req);
  const meter = new OpenAiStreamMeter({ dropUsageChunk: req.dropUsageChunk });
  const client: Buffer[] = [];
  const upstream: Buffer[] = [];
  let failure: unknown = null;
  try {
    for await (const chunk of res.body) {
      upstream.push(chunk as Buffer);
      client.push(...[meter.write(chunk as Buffer)].flat());
    }
  } catch (err) {
    failure = err;
  }
  client.push(meter.end());
  return {
    status: res.statusCode,
    meter,
    failure,
    client: Buffer.concat(client).toString(),
    upstream: Buffer.concat(upstream).toString(),
  };
}

describe('OpenAI adapter against the fake upstream', () => {
  it('asks for usage on a stream, meters it, and hides the usage chunk from the client', async () => {
    fake.setScenario({ kind: 'ok', content: 'alpha beta gamma', promptTokens: 21 });
    const req = buildOpenAiRequest({
      channel,
      endpoint: 'chat/completions',
      upstreamModel: 'gpt-4o-2024-08-06',
      body: json({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'go' }] }),
    });
    const r = await relayStream(req);
    expect(r.status).toBe(200);
    expect(fake.requests[0]?.json?.stream_options).toEqual({ include_usage: true });
    expect(fake.requests[0]?.model).toBe('gpt-4o-2024-08-06');
    expect(r.meter.usage).toEqual({ ...emptyUsage(), inputTokens: 21, outputTokens: 3 });
    expect(r.meter.done).toBe(true);
    expect(r.meter.droppedUsageChunk).toBe(true);
    expect(r.upstream).toContain('"prompt_tokens":21');
    expect(r.client).not.toContain('"prompt_tokens"');
    // Everything else reaches the client exactly as sent.
    const usageEvent = r.upstream.split('\n\n').find((e) => e.includes('"prompt_tokens"'));
    expect(r.client).toBe(r.upstream.replace(`${usageEvent}\n\n`, ''));
  });

  it('forwards the usage chunk to a client that asked for it', async () => {
    const req = buildOpenAiRequest({
      channel,
      endpoint: 'chat/completions',
      upstreamModel: 'gpt-4o',
      body: json({ model: 'gpt-4o', stream: true, stream_options: { include_usage: true }, messages: [] }),
    });
    expect(req.rewritten).toBe(false);
    const r = await relayStream(req);
    expect(r.client).toBe(r.upstream);
    expect(r.meter.usage?.outputTokens).toBe(5);
  });

  it('estimates from the text when the upstream sends no usage', async () => {
    fake.setScenario({ kind: 'ok', content: 'tiktoken is great!', usage: 'never' });
    const req = buildOpenAiRequest({
      channel: { ...channel, type: 8 },
      endpoint: 'chat/completions',
      upstreamModel: 'gpt-4',
      body: json({ model: 'gpt-4', stream: true, messages: [] }),
    });
    const r = await relayStream(req);
    expect(r.meter.usage).toBeNull();
    const tok = await new TokenCounter().tokenizer('gpt-4');
    expect(tok.count(r.meter.completionText())).toBe(6);
  });

  it('sees a broken stream and a mid-stream error', async () => {
    fake.setScenario({ kind: 'ok', content: 'a b c d', breakAfterEvents: 3 }, { times: 1 });
    const body = json({ model: 'gpt-4o', stream: true, messages: [] });
    const broken = await relayStream(
      buildOpenAiRequest({ channel, endpoint: 'chat/completions', upstreamModel: 'gpt-4o', body }),
    );
    expect(broken.failure).toBeInstanceOf(Error);
    expect(broken.meter.done).toBe(false);
    expect(broken.meter.usage).toBeNull();
    expect(broken.meter.completionText()).toBe('a b ');

    fake.setScenario({ kind: 'ok', content: 'a b c d', errorAfterEvents: 2 }, { times: 1 });
    const errored = await relayStream(
      buildOpenAiRequest({ channel, endpoint: 'chat/completions', upstreamModel: 'gpt-4o', body }),
    );
    expect(errored.failure).toBeNull();
    expect(errored.meter.error?.type).toBe('server_error');
    expect(errored.meter.done).toBe(false);
  });

  it('reads JSON usage and error bodies', async () => {
    const req = buildOpenAiRequest({
      channel,
      endpoint: 'embeddings',
      upstreamModel: 'text-embedding-3-small',
      body: json({ model: 'text-embedding-3-small', input: ['a', 'b', 'c'] }),
    });
    const res = await send(req);
    expect(readJsonUsage(Buffer.from(await res.body.arrayBuffer()))).toEqual({
      ...emptyUsage(),
      inputTokens: 30,
    });

    fake.setScenario(fakeErrors.insufficientQuota(), { times: 1 });
    const failed = await send(
      buildOpenAiRequest({
        channel,
        endpoint: 'chat/completions',
        upstreamModel: 'gpt-4o',
        body: json({ model: 'gpt-4o' }),
      }),
    );
    const err = parseUpstreamError(
      failed.statusCode,
      Buffer.from(await failed.body.arrayBuffer()),
      String(failed.headers['content-type']),
    );
    expect(err).toMatchObject({ status: 429, type: 'insufficient_quota', code: 'insufficient_quota' });
  });

  it('streams a multipart upload with a mapped model through undici', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(4096, 9)], { type: 'audio/mpeg' }), 'talk.mp3');
    form.append('model', 'my-whisper');
    const encoded = new Response(form);
    const contentType = encoded.headers.get('content-type') ?? '';
    const bytes = Buffer.from(await encoded.arrayBuffer());
    const req = buildOpenAiRequest({
      channel,
      endpoint: 'audio/transcriptions',
      upstreamModel: 'whisper-1',
      body: {
        kind: 'multipart',
        contentType,
        body: Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]),
        model: 'my-whisper',
      },
    });
    const res = await send(req);
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toMatchObject({ text: 'Hello from the fake upstream.' });
    const rec = fake.requests[0];
    // We set no length (the rewritten size is unknown up front); what arrived is the rewritten form.
    expect(req.headers['content-length']).toBeUndefined();
    expect(rec?.body.length).toBe(bytes.length - 'my-whisper'.length + 'whisper-1'.length);
    expect(rec?.model).toBe('whisper-1');
    expect(rec?.files?.file?.size).toBe(4096);
  });
});

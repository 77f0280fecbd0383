import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeAzure, startFakeAzure } from '../../test/fake-azure.js';
import { readJsonUsage } from '../openai/json-meter.js';
import { type InboundBody, UnsupportedEndpointError } from '../openai/request.js';
import { OpenAiStreamMeter } from '../openai/stream-meter.js';
import type { UpstreamRequest } from '../upstream-request.js';
import { parseAzureError } from './errors.js';
import { buildAzureRequest } from './request.js';

let fake: FakeAzure;
beforeAll(async () => {
  fake = await startFakeAzure({
    apiKey: 'k-azure',
    deployments: ['gpt-4o', 'gpt-4.1', 'text-embedding-3-small', 'dall-e-3', 'tts', 'whisper'],
  });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const channel = (other = '') => ({ type: 3, baseUrl: fake.url, key: 'k-azure', other });
const json = (value: Record<string, unknown>): InboundBody => ({
  kind: 'json',
  raw: Buffer.from(JSON.stringify(value)),
  value,
});
const send = (r: UpstreamRequest) =>
  request(r.url, { method: r.method, headers: r.headers, body: (r.body as Buffer) ?? null });

describe('Azure adapter against the fake', () => {
  it('streams chat from a deployment, asks for usage and hides it from a client that did not', async () => {
    const r = buildAzureRequest({
      channel: channel('2025-04-01-preview'),
      endpoint: 'chat/completions',
      upstreamModel: 'gpt-4.1',
      body: json({ model: 'gpt-4.1', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(r.path).toBe('/openai/deployments/gpt-4.1/chat/completions?api-version=2025-04-01-preview');
    expect(r.headers['api-key']).toBe('k-azure');
    expect(r.headers.authorization).toBeUndefined();
    const res = await send(r);
    const meter = new OpenAiStreamMeter({ dropUsageChunk: r.dropUsageChunk });
    const client: Buffer[] = [];
    for await (const chunk of res.body) client.push(...[meter.write(chunk as Buffer)].flat());
    client.push(meter.end());
    expect(meter.done).toBe(true);
    expect(meter.usage).toMatchObject({ inputTokens: 12, outputTokens: 6 });
    expect(Buffer.concat(client).toString()).not.toContain('"prompt_tokens"');
  });

  it('uses the catalog api-version when the channel has none, and reads cached tokens', async () => {
    fake.setScenario({ kind: 'ok', promptTokens: 100, cachedTokens: 64 });
    const r = buildAzureRequest({
      channel: channel(),
      endpoint: 'chat/completions',
      upstreamModel: 'gpt-4o',
      body: json({ model: 'gpt-4o', messages: [] }),
    });
    const res = await send(r);
    expect(fake.requests[0]?.apiVersion).toBe('2024-10-21');
    expect(readJsonUsage(Buffer.from(await res.body.arrayBuffer()))).toMatchObject({
      inputTokens: 100,
      cachedReadTokens: 64,
    });
  });

  it('serves embeddings, images and speech from their deployments', async () => {
    const emb = await send(
      buildAzureRequest({
        channel: channel(),
        endpoint: 'embeddings',
        upstreamModel: 'text-embedding-3-small',
        body: json({ model: 'x', input: ['a'] }),
      }),
    );
    expect(readJsonUsage(Buffer.from(await emb.body.arrayBuffer()))).toMatchObject({ inputTokens: 4 });
    const img = await send(
      buildAzureRequest({
        channel: channel(),
        endpoint: 'images/generations',
        upstreamModel: 'dall-e-3',
        body: json({ model: 'dall-e-3', prompt: 'a cat' }),
      }),
    );
    expect(((await img.body.json()) as { data: { revised_prompt: string }[] }).data[0]?.revised_prompt).toBe(
      'a cat',
    );
    const tts = await send(
      buildAzureRequest({
        channel: channel(),
        endpoint: 'audio/speech',
        upstreamModel: 'tts',
        body: json({ model: 'tts-1', input: 'hello', voice: 'alloy' }),
      }),
    );
    expect(tts.headers['content-type']).toBe('audio/mpeg');
    expect(Buffer.from(await tts.body.arrayBuffer()).toString()).toContain('hello');
    expect(fake.requests.map((q) => q.path)).toEqual([
      '/openai/deployments/text-embedding-3-small/embeddings',
      '/openai/deployments/dall-e-3/images/generations',
      '/openai/deployments/tts/audio/speech',
    ]);
  });

  it('sends a transcription upload to its deployment', async () => {
    const boundary = 'b0undary';
    const form = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.mp3"\r\nContent-Type: audio/mpeg\r\n\r\nID3\r\n--${boundary}--\r\n`,
    );
    const r = buildAzureRequest({
      channel: channel(),
      endpoint: 'audio/transcriptions',
      upstreamModel: 'whisper',
      body: {
        kind: 'multipart',
        contentType: `multipart/form-data; boundary=${boundary}`,
        body: form,
        model: 'whisper-1',
      },
    });
    const res = await send(r);
    expect(await res.body.json()).toEqual({ text: 'fake transcription' });
  });

  it('reads Azure errors: missing deployment, content filter, rate limit, gateway 401', async () => {
    const missing = await send(
      buildAzureRequest({
        channel: channel(),
        endpoint: 'chat/completions',
        upstreamModel: 'nope',
        body: json({ messages: [] }),
      }),
    );
    expect(parseAzureError(missing.statusCode, Buffer.from(await missing.body.arrayBuffer()))).toMatchObject({
      status: 404,
      code: 'DeploymentNotFound',
    });
    fake.setScenario({ kind: 'contentFilter' });
    const filtered = await send(
      buildAzureRequest({
        channel: channel(),
        endpoint: 'chat/completions',
        upstreamModel: 'gpt-4o',
        body: json({ messages: [] }),
      }),
    );
    expect(
      parseAzureError(filtered.statusCode, Buffer.from(await filtered.body.arrayBuffer())),
    ).toMatchObject({
      status: 400,
      type: 'content_filter',
      code: 'ResponsibleAIPolicyViolation',
      param: 'prompt',
    });
    fake.setScenario({ kind: 'rateLimited' });
    const limited = await send(
      buildAzureRequest({
        channel: channel(),
        endpoint: 'chat/completions',
        upstreamModel: 'gpt-4o',
        body: json({ messages: [] }),
      }),
    );
    expect(limited.headers['retry-after']).toBe('6');
    expect(parseAzureError(429, Buffer.from(await limited.body.arrayBuffer()))).toMatchObject({
      code: '429',
    });
    expect(
      parseAzureError(401, '{"statusCode":401,"message":"Unauthorized. Access token is missing, invalid."}'),
    ).toEqual({
      status: 401,
      message: 'Unauthorized. Access token is missing, invalid.',
      type: 'azure_error',
      code: '401',
      param: null,
    });
  });

  it('refuses what an Azure resource does not serve', () => {
    for (const endpoint of ['moderations', 'rerank', 'images/variations'] as const) {
      expect(() =>
        buildAzureRequest({ channel: channel(), endpoint, upstreamModel: 'gpt-4o', body: json({}) }),
      ).toThrow(UnsupportedEndpointError);
    }
  });
});

import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeBedrock, startFakeBedrock } from '../../test/fake-bedrock.js';
import { readAnthropicJsonUsage } from '../anthropic/json-meter.js';
import { AnthropicStreamMeter } from '../anthropic/stream-meter.js';
import { anthropicToOpenAiResponse } from '../translate/openai-anthropic.js';
import type { UpstreamRequest } from '../upstream-request.js';
import { parseBedrockError } from './errors.js';
import { buildBedrockRequest } from './request.js';
import { BedrockStreamDecoder } from './stream.js';

// The adapter against the fake Bedrock over real HTTP (undici), as the relay will call it.

let fake: FakeBedrock;
const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';

beforeAll(async () => {
  fake = await startFakeBedrock({ accessKeyId: 'AKIDTEST', region: 'eu-west-1' });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

function channel(key = 'eu-west-1|AKIDTEST|secret|session') {
  return { type: 32, baseUrl: fake.url, key, headers: {} };
}

async function send(r: UpstreamRequest) {
  return request(r.url, { method: r.method, headers: r.headers, body: r.body as Buffer });
}

const messages = [{ role: 'user', content: 'What is the weather?' }];

describe('Bedrock adapter against the fake', () => {
  it('invokes a Claude model and reads the Anthropic reply and its usage', async () => {
    fake.setScenario({ kind: 'ok', content: 'Sunny.', inputTokens: 9, cacheReadTokens: 3 });
    const r = buildBedrockRequest({
      channel: channel(),
      upstreamModel: MODEL,
      body: { kind: 'json', value: { model: 'claude-3-5-haiku', max_tokens: 50, messages } },
    });
    const res = await send(r);
    const body = Buffer.from(await res.body.arrayBuffer());
    expect(res.statusCode).toBe(200);
    expect(fake.requests[0]?.modelId).toBe(MODEL);
    expect(fake.requests[0]?.headers['x-amz-security-token']).toBe('session');
    expect(readAnthropicJsonUsage(body)).toMatchObject({
      inputTokens: 12,
      cachedReadTokens: 3,
      outputTokens: 1,
    });
    const openai = anthropicToOpenAiResponse(JSON.parse(body.toString()), { model: 'claude-3-5-haiku' });
    expect(openai.choices[0]?.message.content).toBe('Sunny.');
  });

  it('streams: event-stream frames decode to Anthropic events with tool input and usage', async () => {
    fake.setScenario({
      kind: 'ok',
      content: 'Checking now',
      toolCalls: [{ name: 'weather', input: { city: 'Oslo' } }],
    });
    const r = buildBedrockRequest({
      channel: channel(),
      upstreamModel: MODEL,
      body: { kind: 'json', value: { model: 'c', max_tokens: 50, stream: true, messages } },
    });
    const res = await send(r);
    expect(res.headers['content-type']).toBe('application/vnd.amazon.eventstream');
    const dec = new BedrockStreamDecoder();
    const meter = new AnthropicStreamMeter();
    const sse: Buffer[] = [];
    for await (const chunk of res.body) sse.push(meter.write(dec.write(chunk as Buffer)));
    meter.end();
    expect(dec.done && meter.done).toBe(true);
    expect(dec.leftover).toBe(0);
    expect(meter.stopReason).toBe('tool_use');
    expect(meter.usage).toMatchObject({ inputTokens: 10, outputTokens: 3 });
    const text = Buffer.concat(sse).toString();
    expect(text).toContain('"partial_json":"{\\"city\\":');
    expect(text).not.toContain('invocationMetrics');
  });

  it('reads a Bedrock error reply: status, exception name, message', async () => {
    fake.setScenario({
      kind: 'error',
      status: 429,
      exception: 'ThrottlingException',
      message: 'Too many tokens, please wait before trying again.',
    });
    const r = buildBedrockRequest({
      channel: channel(),
      upstreamModel: MODEL,
      body: { kind: 'object', value: { max_tokens: 5, messages } },
    });
    const res = await send(r);
    const err = parseBedrockError(
      res.statusCode,
      Buffer.from(await res.body.arrayBuffer()),
      String(res.headers['x-amzn-errortype']),
    );
    expect(err).toMatchObject({
      status: 429,
      type: 'ThrottlingException',
      message: 'Too many tokens, please wait before trying again.',
    });
  });

  it('reports an exception frame mid-stream', async () => {
    fake.setScenario({
      kind: 'streamException',
      afterEvents: 3,
      exception: 'modelStreamErrorException',
      message: 'The model stopped.',
    });
    const r = buildBedrockRequest({
      channel: channel(),
      upstreamModel: MODEL,
      body: { kind: 'object', value: { max_tokens: 5, stream: true, messages } },
    });
    const res = await send(r);
    const dec = new BedrockStreamDecoder();
    for await (const chunk of res.body) dec.write(chunk as Buffer);
    expect(dec.done).toBe(false);
    expect(dec.error).toMatchObject({ status: 424, message: 'The model stopped.' });
  });

  it('is refused by the fake when the key names another access key or region', async () => {
    const r = buildBedrockRequest({
      channel: channel('us-east-1|AKIDTEST|secret'),
      upstreamModel: MODEL,
      body: { kind: 'object', value: { max_tokens: 5, messages } },
    });
    const res = await send(r);
    const err = parseBedrockError(
      res.statusCode,
      Buffer.from(await res.body.arrayBuffer()),
      String(res.headers['x-amzn-errortype']),
    );
    expect(err).toMatchObject({ status: 403, type: 'UnrecognizedClientException' });
  });
});

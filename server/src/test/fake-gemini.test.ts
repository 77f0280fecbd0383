import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GeminiStreamMeter } from '../providers/gemini/stream-meter.js';
import { SseReader } from '../providers/translate/sse-framing.js';
import { type FakeGemini, fakeGeminiErrors, startFakeGemini } from './fake-gemini.js';

const KEY = 'AIza-fake-key';

let fake: FakeGemini;

beforeAll(async () => {
  fake = await startFakeGemini({ apiKey: KEY });
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => {
  fake.reset();
});

function post(path: string, body: unknown, headers: Record<string, string> = { 'x-goog-api-key': KEY }) {
  return fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

function sseData(text: string): unknown[] {
  const reader = new SseReader();
  const events = [...reader.push(Buffer.from(text)), ...reader.end()];
  return events.map((e) => JSON.parse(e.data.toString('utf8')));
}

const ask = { contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] };

describe('fake Gemini upstream', () => {
  it('answers generateContent with candidates and usage, and records the request', async () => {
    fake.setScenario({ kind: 'ok', content: 'Hi there friend', promptTokens: 6, cachedTokens: 4 });
    const res = await post('/v1beta/models/gemini-2.5-flash:generateContent', ask);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      candidates: [
        { content: { parts: [{ text: 'Hi there friend' }], role: 'model' }, finishReason: 'STOP', index: 0 },
      ],
      usageMetadata: {
        promptTokenCount: 6,
        candidatesTokenCount: 3,
        totalTokenCount: 9,
        promptTokensDetails: [{ modality: 'TEXT', tokenCount: 6 }],
        cachedContentTokenCount: 4,
        cacheTokensDetails: [{ modality: 'TEXT', tokenCount: 4 }],
      },
      modelVersion: 'gemini-2.5-flash',
      responseId: expect.stringMatching(/^fakeResp/),
    });
    const rec = fake.requests[0];
    expect(rec).toMatchObject({
      version: 'v1beta',
      model: 'gemini-2.5-flash',
      action: 'generateContent',
      apiKey: KEY,
    });
  });

  it('streams SSE events ending in CRLF: thoughts only when asked for, then text, calls and the finish', async () => {
    fake.setScenario({
      kind: 'ok',
      thoughts: 'Let me think',
      content: 'Calling now',
      functionCalls: [{ name: 'lookup', args: { q: 'x' } }],
      thoughtsTokens: 30,
    });
    const body = {
      ...ask,
      generation_config: { thinking_config: { include_thoughts: true } },
    };
    const res = await post('/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse', body);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const text = await res.text();
    expect(text.endsWith('\r\n\r\n')).toBe(true);
    const events = sseData(text) as {
      candidates: { content: { parts: Record<string, unknown>[] }; finishReason?: string }[];
      usageMetadata: Record<string, number>;
    }[];
    const parts = events.flatMap((e) => e.candidates[0]?.content.parts ?? []);
    expect(parts).toEqual([
      { text: 'Let ', thought: true },
      { text: 'me ', thought: true },
      { text: 'think', thought: true },
      { text: 'Calling ', thoughtSignature: expect.any(String) },
      { text: 'now' },
      { functionCall: { name: 'lookup', args: { q: 'x' } } },
    ]);
    expect(events.map((e) => e.candidates[0]?.finishReason)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      'STOP',
    ]);
    expect(events.at(-1)?.usageMetadata).toMatchObject({
      candidatesTokenCount: 3,
      thoughtsTokenCount: 30,
      totalTokenCount: 43,
    });

    const plain = sseData(
      await (await post('/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse', ask)).text(),
    );
    expect(JSON.stringify(plain)).not.toContain('"thought":true');
  });

  it('streams a JSON array without alt=sse and accepts the key as ?key=', async () => {
    fake.setScenario({ kind: 'ok', content: 'a b' });
    const res = await post(`/v1/models/gemini-2.5-flash:streamGenerateContent?key=${KEY}`, ask, {});
    const list = (await res.json()) as { candidates: unknown[] }[];
    expect(list).toHaveLength(2);
    expect(fake.requests[0]?.apiKey).toBe(KEY);
  });

  it('answers errors in Google shape, including a bad key and an error mid-stream', async () => {
    const bad = await post('/v1beta/models/gemini-2.5-flash:generateContent', ask, {
      'x-goog-api-key': 'nope',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { code: 400, status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_INVALID' }] },
    });
    const none = await post('/v1beta/models/gemini-2.5-flash:generateContent', ask, {});
    expect(none.status).toBe(403);

    fake.setScenario(fakeGeminiErrors.resourceExhausted(), { times: 1 });
    const limited = await post('/v1beta/models/gemini-2.5-flash:generateContent', ask);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ error: { status: 'RESOURCE_EXHAUSTED' } });

    const empty = await post('/v1beta/models/gemini-2.5-flash:generateContent', { contents: [] });
    expect(empty.status).toBe(400);

    fake.setScenario({ kind: 'ok', content: 'one two three', errorAfterEvents: 1 });
    const broken = sseData(
      await (await post('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', ask)).text(),
    );
    expect(broken).toHaveLength(2);
    expect(broken[1]).toMatchObject({ error: { code: 500, status: 'INTERNAL' } });
  });

  it('blocks a prompt, counts tokens and lists models', async () => {
    fake.setScenario({ kind: 'ok', blockReason: 'SAFETY' }, { times: 1 });
    expect(await (await post('/v1beta/models/gemini-2.5-flash:generateContent', ask)).json()).toMatchObject({
      promptFeedback: { blockReason: 'SAFETY' },
    });
    const count = (await (await post('/v1beta/models/gemini-2.5-flash:countTokens', ask)).json()) as {
      totalTokens: number;
    };
    expect(count.totalTokens).toBeGreaterThan(0);
    const models = (await (
      await fetch(`${fake.url}/v1beta/models`, { headers: { 'x-goog-api-key': KEY } })
    ).json()) as {
      models: { name: string }[];
    };
    expect(models.models.map((m) => m.name)).toEqual([
      'models/gemini-2.5-flash',
      'models/gemini-2.5-pro',
      'models/gemini-3-pro-preview',
    ]);
  });

  it('gives the passthrough meter the usage of the last event, bytes unchanged', async () => {
    fake.setScenario({
      kind: 'ok',
      content: 'one two three',
      promptTokens: 12,
      thoughtsTokens: 7,
      cachedTokens: 8,
    });
    const res = await post('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', ask);
    const meter = new GeminiStreamMeter();
    const reader = res.body?.getReader();
    const seen: Buffer[] = [];
    for (;;) {
      const next = await reader?.read();
      if (!next || next.done) break;
      const chunk = Buffer.from(next.value);
      expect(meter.write(chunk)).toBe(chunk);
      seen.push(chunk);
    }
    meter.end();
    expect(meter.usage).toMatchObject({
      inputTokens: 12,
      outputTokens: 10,
      reasoningTokens: 7,
      cachedReadTokens: 8,
    });
    expect(meter.done).toBe(true);
    expect(meter.completionText()).toBe('one two three');
    expect(Buffer.concat(seen).toString()).toContain('"finishReason":"STOP"');
  });
});

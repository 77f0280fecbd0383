import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MODELS, type ProtocolRig, resetRig, startProtocolRig } from '../../test/protocol-fixtures.js';
import { createChannel, settled } from '../../test/relay-fixtures.js';

// Gemini's REST API on the gateway (`/gemini/{version}/models/{model}:{action}` and
// `/v1beta/models/...`), as a Gemini client calls it: keys in x-goog-api-key, ?key= or
// Authorization; streams as SSE (`alt=sse`) or one JSON array; Google-shaped errors.

type Json = Record<string, unknown>;

/** The data payloads of an SSE body (Gemini ends events with CRLF CRLF). */
function sseEvents(text: string): Json[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((block) => block.split(/\r?\n/).filter((l) => l.startsWith('data:')))
    .filter((lines) => lines.length > 0)
    .map((lines) => JSON.parse(lines.map((l) => l.slice(5).trim()).join('\n')) as Json);
}

function partsOf(events: Json[]): Json[] {
  return events.flatMap((e) =>
    ((e.candidates as Json[] | undefined) ?? []).flatMap(
      (c) => ((c.content as Json | undefined)?.parts as Json[] | undefined) ?? [],
    ),
  );
}

/** A 1x1 PNG. */
const PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const weatherTool = {
  functionDeclarations: [
    {
      name: 'get_weather',
      description: 'Current weather of a city',
      parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
    },
  ],
};

describe('Gemini inbound', () => {
  let rig: ProtocolRig;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${rig.root}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  beforeAll(async () => {
    rig = await startProtocolRig();
  });
  afterAll(async () => {
    await rig?.close();
  });
  beforeEach(async () => {
    await settled(rig.t);
    await resetRig(rig);
  });

  it('streams a function call from an OpenAI channel as Gemini SSE and bills cached and reasoning tokens', async () => {
    rig.openai.setScenario(
      {
        kind: 'ok',
        toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }],
        chunks: 3,
        promptTokens: 100,
        cachedTokens: 40,
        completionTokens: 20,
        reasoningTokens: 8,
      },
      { times: 1 },
    );
    const before = await rig.quota();
    const res = await post(
      `/gemini/v1beta/models/${MODELS.openai}:streamGenerateContent?alt=sse`,
      {
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }],
        tools: [weatherTool],
        generationConfig: { maxOutputTokens: 300, temperature: 0.2 },
      },
      { 'x-goog-api-key': rig.userKey },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = sseEvents(await res.text());
    const call = partsOf(events).find((p) => p.functionCall);
    expect(call?.functionCall).toEqual({ name: 'get_weather', args: { city: 'Paris' } });
    const last = events.at(-1)!;
    expect((last.candidates as Json[])[0]).toMatchObject({ finishReason: 'STOP' });
    expect(last.usageMetadata).toMatchObject({
      promptTokenCount: 100,
      cachedContentTokenCount: 40,
      candidatesTokenCount: 12,
      thoughtsTokenCount: 8,
    });
    expect(rig.openai.requests[0]?.json).toMatchObject({
      model: MODELS.openai,
      stream: true,
      max_completion_tokens: 300,
      temperature: 0.2,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather' } }],
    });
    await settled(rig.t);
    // 2 x 100 - 40 + 4 x 20 + 4 x 8 = 272
    expect(before - (await rig.quota())).toBe(272);
    expect(await rig.lastLog()).toMatchObject({ quota: 272, is_stream: 1, model_name: MODELS.openai });
  });

  it('streams as one JSON array without alt=sse, with the key in ?key=', async () => {
    rig.anthropic.setScenario(
      { kind: 'ok', content: 'one two three', inputTokens: 5, outputTokens: 3 },
      { times: 1 },
    );
    const res = await post(`/v1beta/models/${MODELS.anthropic}:streamGenerateContent?key=${rig.userKey}`, {
      contents: [{ role: 'user', parts: [{ text: 'count' }] }],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const array = JSON.parse(await res.text()) as Json[];
    expect(Array.isArray(array)).toBe(true);
    expect(
      partsOf(array)
        .map((p) => p.text)
        .join(''),
    ).toBe('one two three');
    expect(array.at(-1)?.usageMetadata).toMatchObject({ promptTokenCount: 5, candidatesTokenCount: 3 });
  });

  it('answers generateContent with an image from an Anthropic channel, key in Authorization', async () => {
    rig.anthropic.setScenario(
      { kind: 'ok', content: 'Paris.', inputTokens: 9, outputTokens: 2 },
      { times: 1 },
    );
    const res = await post(
      `/gemini/v1/models/${MODELS.anthropic}:generateContent`,
      {
        contents: [
          {
            role: 'user',
            parts: [{ text: 'Capital of France?' }, { inline_data: { mime_type: 'image/png', data: PIXEL } }],
          },
        ],
      },
      { authorization: `Bearer ${rig.userKey}` },
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      candidates: [{ content: { role: 'model', parts: [{ text: 'Paris.' }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 2, totalTokenCount: 11 },
      modelVersion: MODELS.anthropic,
    });
    expect(rig.anthropic.requests[0]?.json).toMatchObject({
      model: MODELS.anthropic,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Capital of France?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL } },
          ],
        },
      ],
    });
  });

  it('passes a Gemini request to a Gemini channel byte for byte, model taken from the URL', async () => {
    rig.gemini.setScenario(
      { kind: 'ok', content: 'Hi!', promptTokens: 4, candidatesTokens: 2 },
      { times: 1 },
    );
    // The model may come percent-encoded and with its `models/` prefix, as some SDKs send it.
    const path = `/gemini/v1beta/models/${encodeURIComponent(`models/${MODELS.gemini}`)}:streamGenerateContent?alt=sse`;
    const raw =
      '{ "contents" : [ {"role":"user","parts":[{"text":"hé  \\u00e9"}]} ],\n "generationConfig":{"temperature":0.5} }';
    const res = await post(path, raw, {
      'x-goog-api-key': rig.userKey,
    });
    expect(res.status).toBe(200);
    const events = sseEvents(await res.text());
    expect(
      partsOf(events)
        .map((p) => p.text)
        .join(''),
    ).toBe('Hi!');
    const rec = rig.gemini.requests[0]!;
    expect(rec.body.toString('utf8')).toBe(raw);
    expect(rec.model).toBe(MODELS.gemini);
    expect(rec.apiKey).toBe('AIza-gemini-upstream');
    expect(rec.query.get('alt')).toBe('sse');
  });

  it('counts tokens on the Gemini channel, without a charge', async () => {
    const before = await rig.quota();
    const body = { contents: [{ role: 'user', parts: [{ text: 'How many tokens is this sentence?' }] }] };
    const res = await post(`/v1beta/models/${MODELS.gemini}:countTokens`, body, {
      'x-goog-api-key': rig.userKey,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-token-count')).toBe('upstream');
    const counted = (await res.json()) as { totalTokens: number };
    // The fake counts a quarter of the contents' JSON: the upstream's number, not the gateway's.
    expect(counted.totalTokens).toBe(Math.ceil(JSON.stringify(body.contents).length / 4));
    const wrapped = await post(
      `/gemini/v1beta/models/${MODELS.gemini}:countTokens`,
      { generateContentRequest: { model: `models/${MODELS.gemini}`, ...body } },
      { 'x-goog-api-key': rig.userKey },
    );
    expect(wrapped.headers.get('x-switchyard-token-count')).toBe('upstream');
    expect(((await wrapped.json()) as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
    expect(rig.gemini.requests.map((r) => r.path)).toEqual([
      `/v1beta/models/${MODELS.gemini}:countTokens`,
      `/v1beta/models/${MODELS.gemini}:countTokens`,
    ]);
    expect(await rig.quota()).toBe(before);
  });

  it('estimates a count locally, saying so, when no Gemini channel serves the model', async () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'How many tokens is this sentence?' }] }] };
    const res = await post(`/v1beta/models/${MODELS.openai}:countTokens`, body, {
      'x-goog-api-key': rig.userKey,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-token-count')).toBe('estimated');
    expect(((await res.json()) as { totalTokens: number }).totalTokens).toBeGreaterThan(5);
    expect(rig.gemini.requests).toHaveLength(0);
    expect(rig.openai.requests).toHaveLength(0);
  });

  it('lists models in Gemini shape', async () => {
    for (const path of ['/v1beta/models', '/gemini/v1beta/models']) {
      const res = await fetch(`${rig.root}${path}?key=${rig.userKey}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { models: { name: string; supportedGenerationMethods: string[] }[] };
      expect(body.models).toContainEqual(
        expect.objectContaining({
          name: `models/${MODELS.gemini}`,
          supportedGenerationMethods: expect.arrayContaining(['generateContent']),
        }),
      );
    }
    const denied = await fetch(`${rig.root}/v1beta/models`);
    expect(denied.status).toBe(401);
    expect(await denied.json()).toMatchObject({ error: { status: 'UNAUTHENTICATED' } });
  });

  it('answers errors in Google shape', async () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
    const missing = await post(`/gemini/v1beta/models/${MODELS.gemini}:generateContent`, body);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });

    const action = await post(`/v1beta/models/${MODELS.gemini}:predictLongRunning`, body, {
      'x-goog-api-key': rig.userKey,
    });
    expect(action.status).toBe(404);
    expect(await action.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });

    await rig.t.s.options.update({ GeminiAPIEnabled: 'false' });
    const off = await post(`/v1beta/models/${MODELS.gemini}:generateContent`, body, {
      'x-goog-api-key': rig.userKey,
    });
    await rig.t.s.options.update({ GeminiAPIEnabled: 'true' });
    expect(off.status).toBe(403);
    expect(await off.json()).toMatchObject({ error: { status: 'PERMISSION_DENIED' } });
    expect(rig.gemini.requests).toHaveLength(0);
  });

  it('applies model mapping in the URL of a Gemini channel and in the body of an Anthropic one', async () => {
    for (const model of ['gemini-alias', 'claude-alias']) {
      const res = await rig.t.call({
        method: 'POST',
        url: '/api/prices/single',
        headers: { cookie: rig.rootCookie },
        payload: { model, type: 'tokens', channel_type: 1, input: 1, output: 1 },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    await createChannel(rig.t, rig.rootCookie, {
      type: 25,
      name: 'gemini-mapped',
      key: 'AIza-gemini-upstream',
      base_url: rig.gemini.url,
      models: ['gemini-alias'],
      model_mapping: '{"gemini-alias": "gemini-2.5-flash"}',
    });
    await createChannel(rig.t, rig.rootCookie, {
      type: 14,
      name: 'claude-mapped',
      key: 'sk-ant-upstream',
      base_url: rig.anthropic.url,
      models: ['claude-alias'],
      model_mapping: '{"claude-alias": "+claude-haiku-4-5"}',
    });
    const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
    const res = await post('/v1beta/models/gemini-alias:generateContent', body, {
      'x-goog-api-key': rig.userKey,
    });
    expect(res.status).toBe(200);
    expect(rig.gemini.requests[0]?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(rig.gemini.requests[0]?.body.toString('utf8')).toBe(JSON.stringify(body));

    const raw = '{"model":"claude-alias","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}';
    const claude = await fetch(`${rig.root}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': rig.userKey, 'content-type': 'application/json' },
      body: raw,
    });
    expect(claude.status).toBe(200);
    // Only the model member changed; the rest of the client's bytes are as sent.
    expect(rig.anthropic.requests[0]?.body.toString('utf8')).toBe(
      raw.replace('claude-alias', 'claude-haiku-4-5'),
    );
    await settled(rig.t);
    // A `+` mapping bills the requested model.
    expect((await rig.lastLog())?.model_name).toBe('claude-alias');
  });
});

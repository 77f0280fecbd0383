import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeGemini, fakeGeminiErrors, startFakeGemini } from '../../test/fake-gemini.js';
import { type FakeUpstream, startFakeUpstream } from '../../test/fake-upstream.js';
import { geminiErrorBody, parseGeminiError } from '../gemini/errors.js';
import { buildGeminiRequest } from '../gemini/request.js';
import { parseUpstreamError } from '../openai/errors.js';
import { buildOpenAiRequest } from '../openai/request.js';
import type { UpstreamRequest } from '../upstream-request.js';
import { isRecord, type JsonRecord } from './json-reading.js';
import {
  GeminiToOpenAiStream,
  geminiToOpenAiRequest,
  geminiToOpenAiResponse,
  OpenAiToGeminiStream,
  openAiToGeminiRequest,
  openAiToGeminiResponse,
} from './openai-gemini.js';
import { SseReader } from './sse-framing.js';
import type { StreamTranslator } from './stream-translator.js';

// The Gemini translators between clients and the fake upstreams, joined by two tiny local servers
// that do what the relay will do. The official `openai` client parses what the Gemini->OpenAI
// translator writes; a Gemini REST client (there is no official Gemini SDK here) reads the other way.

const GEMINI_KEY = 'AIza-upstream';
const OPENAI_KEY = 'sk-openai-upstream';

let geminiUpstream: FakeGemini;
let openAiUpstream: FakeUpstream;
let openAiFront: Server;
let geminiFront: Server;
let openai: OpenAI;

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

/** Speaks OpenAI chat/completions to the client, Gemini to the upstream. */
async function openAiToGeminiChannel(req: IncomingMessage, res: ServerResponse) {
  const body = await readJson(req);
  const model = String(body.model);
  const stream = body.stream === true;
  const up = await send(
    buildGeminiRequest({
      channel: { type: 25, baseUrl: geminiUpstream.url, key: GEMINI_KEY, other: '', headers: {} },
      action: stream ? 'streamGenerateContent' : 'generateContent',
      upstreamModel: model,
      body: { kind: 'object', value: openAiToGeminiRequest(body, { model }) },
    }),
  );
  if (up.statusCode >= 400) {
    const error = parseGeminiError(up.statusCode, Buffer.from(await up.body.arrayBuffer()));
    json(res, error.status, {
      error: { message: error.message, type: error.type, code: error.code, param: null },
    });
    return;
  }
  if (stream) {
    const includeUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
    await pipeStream(res, up.body, new GeminiToOpenAiStream({ model, includeUsage }));
    return;
  }
  json(res, 200, geminiToOpenAiResponse((await up.body.json()) as JsonRecord, { model }));
}

/** Speaks Gemini to the client (`/v1beta/models/{model}:{action}`), OpenAI to the upstream. */
async function geminiToOpenAiChannel(req: IncomingMessage, res: ServerResponse) {
  const body = await readJson(req);
  const m = /\/models\/([^/:]+):(\w+)/.exec(req.url ?? '');
  const model = m?.[1] ?? '';
  const stream = m?.[2] === 'streamGenerateContent';
  const translated = geminiToOpenAiRequest(body, { model, stream }) as unknown as JsonRecord;
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
    json(res, error.status, geminiErrorBody(error));
    return;
  }
  if (stream) {
    await pipeStream(res, up.body, new OpenAiToGeminiStream({ model }));
    return;
  }
  json(res, 200, openAiToGeminiResponse((await up.body.json()) as JsonRecord, { model }));
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
  geminiUpstream = await startFakeGemini({ apiKey: GEMINI_KEY });
  openAiUpstream = await startFakeUpstream({ apiKey: OPENAI_KEY });
  openAiFront = await listen(openAiToGeminiChannel);
  geminiFront = await listen(geminiToOpenAiChannel);
  openai = new OpenAI({ apiKey: 'client-key', baseURL: `${urlOf(openAiFront)}/v1`, maxRetries: 0 });
});

afterAll(async () => {
  for (const s of [openAiFront, geminiFront]) await new Promise<void>((resolve) => s.close(() => resolve()));
  await geminiUpstream.close();
  await openAiUpstream.close();
});

beforeEach(() => {
  geminiUpstream.reset();
  openAiUpstream.reset();
});

const weatherTool: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
  },
};

describe('the openai client through a Gemini channel', () => {
  it('streams thoughts, text and tool calls, then sends the results back paired by name', async () => {
    geminiUpstream.setScenario({
      kind: 'ok',
      thoughts: 'Two lookups needed.',
      content: 'Looking up.',
      functionCalls: [
        { name: 'get_weather', args: { city: 'Paris' } },
        { name: 'get_weather', args: { city: 'Oslo' } },
      ],
      promptTokens: 120,
      cachedTokens: 100,
      thoughtsTokens: 40,
    });
    const stream = openai.chat.completions.stream({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Weather in Paris and Oslo?' }],
      tools: [weatherTool],
      reasoning_effort: 'medium',
      stream_options: { include_usage: true },
    });
    let reasoning = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { reasoning_content?: string } | undefined;
      reasoning += delta?.reasoning_content ?? '';
    }
    const completion = await stream.finalChatCompletion();
    const message = completion.choices[0]?.message;
    expect(reasoning).toBe('Two lookups needed.');
    expect(message?.content).toBe('Looking up.');
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    const calls = (message?.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [c] : []));
    expect(calls.map((c) => c.function.arguments)).toEqual(['{"city":"Paris"}', '{"city":"Oslo"}']);
    expect(completion.usage).toMatchObject({
      prompt_tokens: 120,
      completion_tokens: 44,
      prompt_tokens_details: { cached_tokens: 100 },
      completion_tokens_details: { reasoning_tokens: 40 },
    });
    const sent = geminiUpstream.requests[0];
    expect(sent?.action).toBe('streamGenerateContent');
    expect(sent?.query.get('alt')).toBe('sse');
    expect(sent?.json?.generationConfig).toEqual({
      thinkingConfig: { includeThoughts: true, thinkingBudget: 8192 },
    });

    geminiUpstream.setScenario({ kind: 'ok', content: 'Paris is warmer.' });
    const next = await openai.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'user', content: 'Weather in Paris and Oslo?' },
        { role: 'assistant', content: message?.content ?? null, tool_calls: calls },
        { role: 'tool', tool_call_id: calls[1]?.id ?? '', content: '{"temp":2}' },
        { role: 'tool', tool_call_id: calls[0]?.id ?? '', content: '{"temp":18}' },
      ],
      tools: [weatherTool],
    });
    expect(next.choices[0]?.message.content).toBe('Paris is warmer.');
    expect(geminiUpstream.requests[1]?.json?.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Paris and Oslo?' }] },
      {
        role: 'model',
        parts: [
          { text: 'Looking up.' },
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
          { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { temp: 2 } } },
          { functionResponse: { name: 'get_weather', response: { temp: 18 } } },
        ],
      },
    ]);
  });

  it('sees a Gemini quota error as a 429', async () => {
    geminiUpstream.setScenario(fakeGeminiErrors.resourceExhausted());
    const failure = await openai.chat.completions
      .create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
  });
});

describe('a Gemini REST client through an OpenAI channel', () => {
  const ask = {
    systemInstruction: { parts: [{ text: 'Be brief.' }] },
    contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }],
    tools: [
      {
        functionDeclarations: [
          { name: 'get_weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } } } },
        ],
      },
    ],
  };

  function post(action: string, body: unknown) {
    return fetch(`${urlOf(geminiFront)}/v1beta/models/gpt-4o:${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  it('streams SSE responses with whole function calls and the final usage', async () => {
    openAiUpstream.setScenario({
      kind: 'ok',
      reasoning: 'Use the tool.',
      toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }],
      chunks: 3,
      promptTokens: 30,
      completionTokens: 12,
    });
    const res = await post('streamGenerateContent', ask);
    const reader = new SseReader();
    const text = Buffer.from(await res.arrayBuffer());
    const events = [...reader.push(text), ...reader.end()].map((e) => JSON.parse(e.data.toString('utf8')));
    const parts = events.flatMap((e) => e.candidates[0].content.parts);
    expect(
      parts
        .filter((p: { thought?: boolean }) => p.thought)
        .map((p: { text: string }) => p.text)
        .join(''),
    ).toBe('Use the tool.');
    expect(parts.filter((p: { functionCall?: unknown }) => p.functionCall)).toEqual([
      { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
    ]);
    expect(events.at(-1)).toMatchObject({
      candidates: [{ finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 30, candidatesTokenCount: 12, totalTokenCount: 42 },
      modelVersion: 'gpt-4o',
    });
    expect(openAiUpstream.requests[0]?.json).toMatchObject({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('answers generateContent and reports upstream errors in Google shape', async () => {
    openAiUpstream.setScenario(
      { kind: 'ok', content: 'Sunny.', promptTokens: 9, completionTokens: 2 },
      { times: 1 },
    );
    const ok = (await (await post('generateContent', ask)).json()) as Record<string, unknown>;
    expect(ok).toMatchObject({
      candidates: [
        { content: { role: 'model', parts: [{ text: 'Sunny.' }] }, finishReason: 'STOP', index: 0 },
      ],
      usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 2, totalTokenCount: 11 },
    });
    openAiUpstream.setScenario({
      kind: 'error',
      status: 403,
      error: {
        message: 'Country, region, or territory not supported',
        type: 'request_forbidden',
        code: null,
      },
    });
    const failed = await post('generateContent', ask);
    expect(failed.status).toBe(403);
    expect(await failed.json()).toEqual({
      error: {
        code: 403,
        message: 'Country, region, or territory not supported',
        status: 'PERMISSION_DENIED',
      },
    });
  });
});

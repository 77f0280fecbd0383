import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeBedrock, startFakeBedrock } from '../test/fake-bedrock.js';
import { type FakeCohere, startFakeCohere } from '../test/fake-cohere.js';
import { type FakeVertex, startFakeVertex } from '../test/fake-vertex.js';
import { buildBedrockRequest } from './bedrock/request.js';
import { BedrockStreamDecoder } from './bedrock/stream.js';
import { cohereToOpenAiResponse } from './cohere/chat.js';
import { buildCohereChatRequest } from './cohere/request.js';
import { CohereToOpenAiStream } from './cohere/stream.js';
import { isRecord, type JsonRecord } from './translate/json-reading.js';
import {
  AnthropicToOpenAiStream,
  anthropicToOpenAiResponse,
  openAiToAnthropicRequest,
} from './translate/openai-anthropic.js';
import { GeminiToOpenAiStream, openAiToGeminiRequest } from './translate/openai-gemini.js';
import type { StreamTranslator } from './translate/stream-translator.js';
import type { UpstreamRequest } from './upstream-request.js';
import { VertexTokenCache } from './vertex/access-token.js';
import { buildVertexRequest, vertexPublisher } from './vertex/request.js';

// The official `openai` client against Bedrock, Vertex (Gemini and Claude) and Cohere channels,
// joined by a tiny local server that does what the relay will do with these adapters: translate
// the request, build the upstream request, decode the platform's framing, translate the reply.
// The SDK parsing the result proves the pieces compose into OpenAI's wire format.

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const EMAIL = 'sdk@proj.iam.gserviceaccount.com';
let bedrock: FakeBedrock;
let vertex: FakeVertex;
let cohere: FakeCohere;
let front: Server;
let openai: OpenAI;
let serviceAccount: string;
const tokens = new VertexTokenCache();

async function readJson(req: IncomingMessage): Promise<JsonRecord> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const v = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  return isRecord(v) ? v : {};
}

const send = (up: UpstreamRequest) =>
  request(up.url, { method: up.method, headers: up.headers, body: up.body as Buffer });

async function pipe(
  res: ServerResponse,
  body: AsyncIterable<unknown>,
  t: StreamTranslator,
  decode?: BedrockStreamDecoder,
) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for await (const c of body) {
    const out = t.write(decode ? decode.write(c as Buffer) : (c as Buffer));
    if (out.length) res.write(out);
  }
  res.end(t.end());
}

/** Routes by model prefix: `bedrock/…`, `vertex/…`, `cohere/…`. */
async function handle(req: IncomingMessage, res: ServerResponse) {
  const body = await readJson(req);
  const [platform = '', model = ''] = String(body.model).split('/', 2);
  const stream = body.stream === true;
  const includeUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
  let up: Awaited<ReturnType<typeof send>>;
  if (platform === 'bedrock' || (platform === 'vertex' && vertexPublisher(model) === 'anthropic')) {
    const messages = { ...openAiToAnthropicRequest(body, { model }), ...(stream ? { stream: true } : {}) };
    up =
      platform === 'bedrock'
        ? await send(
            buildBedrockRequest({
              channel: { type: 32, baseUrl: bedrock.url, key: 'us-east-1|AKIDSDK|secret', headers: {} },
              upstreamModel: model,
              body: { kind: 'object', value: messages },
            }),
          )
        : await send(
            await buildVertexRequest(
              {
                channel: {
                  type: 42,
                  baseUrl: vertex.url,
                  key: serviceAccount,
                  other: 'us-east5',
                  headers: {},
                },
                upstreamModel: model,
                body: { kind: 'object', value: messages },
                stream,
              },
              tokens,
            ),
          );
    if (stream)
      return pipe(
        res,
        up.body,
        new AnthropicToOpenAiStream({ model: String(body.model), includeUsage }),
        platform === 'bedrock' ? new BedrockStreamDecoder() : undefined,
      );
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(
      JSON.stringify(
        anthropicToOpenAiResponse((await up.body.json()) as JsonRecord, { model: String(body.model) }),
      ),
    );
  }
  if (platform === 'vertex') {
    up = await send(
      await buildVertexRequest(
        {
          channel: { type: 42, baseUrl: vertex.url, key: serviceAccount, other: 'us-east5', headers: {} },
          upstreamModel: model,
          body: { kind: 'object', value: openAiToGeminiRequest(body, { model }) },
          stream,
        },
        tokens,
      ),
    );
    return pipe(res, up.body, new GeminiToOpenAiStream({ model: String(body.model), includeUsage }));
  }
  up = await send(
    buildCohereChatRequest({
      channel: { type: 36, baseUrl: cohere.url, key: 'co', headers: {} },
      upstreamModel: model,
      body,
    }),
  );
  if (stream)
    return pipe(res, up.body, new CohereToOpenAiStream({ model: String(body.model), includeUsage }));
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(cohereToOpenAiResponse(await up.body.json(), { model: String(body.model) })));
}

beforeAll(async () => {
  bedrock = await startFakeBedrock({ accessKeyId: 'AKIDSDK', region: 'us-east-1' });
  vertex = await startFakeVertex({ publicKey, clientEmail: EMAIL });
  cohere = await startFakeCohere({ apiKey: 'co' });
  serviceAccount = JSON.stringify({
    type: 'service_account',
    project_id: 'proj',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: EMAIL,
    token_uri: vertex.tokenUri,
  });
  front = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      res.writeHead(500);
      res.end(String(e));
    });
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  openai = new OpenAI({
    apiKey: 'sk-client',
    baseURL: `http://127.0.0.1:${(front.address() as AddressInfo).port}/v1`,
    maxRetries: 0,
  });
});

afterAll(async () => {
  front.closeAllConnections();
  await new Promise((r) => front.close(r));
  await Promise.all([bedrock.close(), vertex.close(), cohere.close()]);
});

const tools = [
  {
    type: 'function' as const,
    function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
  },
];

async function streamed(model: string) {
  const s = await openai.chat.completions.create({
    model,
    stream: true,
    stream_options: { include_usage: true },
    tools,
    messages: [{ role: 'user', content: 'Weather in Oslo?' }],
  });
  let text = '';
  const args: string[] = [];
  let name = '';
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of s) {
    const choice = chunk.choices[0];
    text += choice?.delta.content ?? '';
    for (const call of choice?.delta.tool_calls ?? []) {
      if (call.function?.name) name = call.function.name;
      args.push(call.function?.arguments ?? '');
    }
    finish = choice?.finish_reason ?? finish;
    usage = chunk.usage ?? usage;
  }
  return { text, name, args: args.join(''), finish, usage };
}

describe('the official openai client through the platform adapters', () => {
  it('streams a tool call through Bedrock', async () => {
    bedrock.setScenario({
      kind: 'ok',
      content: 'Checking.',
      toolCalls: [{ name: 'weather', input: { city: 'Oslo' } }],
    });
    const r = await streamed('bedrock/anthropic.claude-3-5-haiku-20241022-v1:0');
    expect(r).toMatchObject({ text: 'Checking.', name: 'weather', finish: 'tool_calls' });
    expect(JSON.parse(r.args)).toEqual({ city: 'Oslo' });
    expect(r.usage?.prompt_tokens).toBe(10);
  });

  it('streams a tool call through Claude on Vertex, and answers without streaming', async () => {
    vertex.setScenario({
      kind: 'ok',
      content: 'Looking.',
      toolCalls: [{ name: 'weather', input: { city: 'Oslo' } }],
    });
    const r = await streamed('vertex/claude-sonnet-4@20250514');
    expect(r).toMatchObject({ text: 'Looking.', name: 'weather', finish: 'tool_calls' });
    expect(JSON.parse(r.args)).toEqual({ city: 'Oslo' });
    vertex.setScenario({ kind: 'ok', content: 'Plain.' });
    const plain = await openai.chat.completions.create({
      model: 'vertex/claude-haiku-4-5@20251001',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(plain.choices[0]?.message.content).toBe('Plain.');
  });

  it('streams Gemini on Vertex', async () => {
    vertex.setScenario({ kind: 'ok', content: 'Sunny in Oslo', promptTokens: 6 });
    const r = await streamed('vertex/gemini-2.5-flash');
    expect(r.text).toBe('Sunny in Oslo');
    expect(r.finish).toBe('stop');
    expect(r.usage).toMatchObject({ prompt_tokens: 6, completion_tokens: 3 });
  });

  it('streams a tool call through Cohere', async () => {
    cohere.setScenario({
      kind: 'ok',
      content: 'On it.',
      toolCalls: [{ name: 'weather', arguments: '{"city":"Oslo"}' }],
    });
    const r = await streamed('cohere/command-a-03-2025');
    expect(r).toMatchObject({ text: 'On it.', name: 'weather', finish: 'tool_calls' });
    expect(JSON.parse(r.args)).toEqual({ city: 'Oslo' });
    cohere.setScenario({ kind: 'ok', content: 'Hi there.' });
    const plain = await openai.chat.completions.create({
      model: 'cohere/command-r',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(plain.choices[0]?.message.content).toBe('Hi there.');
  });
});

import OpenAI, { APIError, toFile } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeUpstream, fakeErrors, startFakeUpstream } from './fake-upstream.js';

const KEY = 'sk-fake-upstream-key';

let fake: FakeUpstream;
let client: OpenAI;

beforeAll(async () => {
  fake = await startFakeUpstream({ apiKey: KEY });
  client = new OpenAI({ apiKey: KEY, baseURL: `${fake.url}/v1`, maxRetries: 0 });
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => {
  fake.reset();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('fake upstream driven by the official openai client', () => {
  it('answers a chat completion with usage and records the request', async () => {
    const res = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    expect(res.object).toBe('chat.completion');
    expect(res.model).toBe('gpt-4o-mini');
    expect(res.choices[0]?.message.content).toBe('Hello from the fake upstream.');
    // One completion token per word of the default text.
    expect(res.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    const rec = fake.requests[0];
    expect(rec?.endpoint).toBe('chat/completions');
    expect(rec?.path).toBe('/v1/chat/completions');
    expect(rec?.authorization).toBe(`Bearer ${KEY}`);
    expect(rec?.json?.messages).toEqual([{ role: 'user', content: 'Say hello' }]);
  });

  it('streams chunks and the usage chunk only when include_usage is asked for', async () => {
    fake.setScenario({ kind: 'ok', content: 'one two three', promptTokens: 7 });
    const withUsage = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'count' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const usages: unknown[] = [];
    for await (const chunk of withUsage) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usages.push(chunk.usage);
      if (chunk.usage) expect(chunk.choices).toEqual([]);
    }
    expect(text).toBe('one two three');
    expect(usages).toEqual([
      {
        prompt_tokens: 7,
        completion_tokens: 3,
        total_tokens: 10,
        prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
        completion_tokens_details: {
          reasoning_tokens: 0,
          audio_tokens: 0,
          accepted_prediction_tokens: 0,
          rejected_prediction_tokens: 0,
        },
      },
    ]);

    const without = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'count' }],
      stream: true,
    });
    let sawUsage = false;
    for await (const chunk of without) if ('usage' in chunk) sawUsage = true;
    expect(sawUsage).toBe(false);
  });

  it('streams tool calls and n>1 choices', async () => {
    fake.setScenario({
      kind: 'ok',
      toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }],
      chunks: 3,
    });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'weather?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
      stream: true,
    });
    let args = '';
    let name = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      const call = chunk.choices[0]?.delta.tool_calls?.[0];
      name += call?.function?.name ?? '';
      args += call?.function?.arguments ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(name).toBe('get_weather');
    expect(args).toBe('{"city":"Paris"}');
    expect(finish).toBe('tool_calls');

    fake.setScenario({ kind: 'ok', content: 'hi there' });
    const multi = await client.chat.completions.create({ model: 'gpt-4o', messages: [], n: 3 });
    expect(multi.choices.map((c) => c.index)).toEqual([0, 1, 2]);
    expect(multi.usage?.completion_tokens).toBe(6);
  });

  it('answers embeddings in the base64 form the client asks for', async () => {
    const res = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['a', 'b'],
      dimensions: 4,
    });
    expect(fake.requests[0]?.json?.encoding_format).toBe('base64');
    expect(res.data).toHaveLength(2);
    expect(res.data[0]?.embedding).toHaveLength(4);
    expect(res.data[0]?.embedding[0]).toBeCloseTo(Math.sin(31), 5);
    expect(res.usage).toEqual({ prompt_tokens: 20, total_tokens: 20 });
    const floats = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: 'x',
      encoding_format: 'float',
    });
    expect(floats.data[0]?.embedding).toHaveLength(8);
  });

  it('generates images as urls, base64, and with gpt-image-1 usage', async () => {
    const urls = await client.images.generate({ model: 'dall-e-3', prompt: 'a cat', n: 1 });
    expect(urls.data?.[0]?.url).toMatch(/^https:\/\/fake-upstream\.invalid\/images\//);
    const b64 = await client.images.generate({
      model: 'dall-e-2',
      prompt: 'a cat',
      n: 2,
      response_format: 'b64_json',
    });
    expect(b64.data).toHaveLength(2);
    expect(
      Buffer.from(b64.data?.[0]?.b64_json ?? '', 'base64')
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    const gpt = await client.images.generate({ model: 'gpt-image-1', prompt: 'a cat' });
    expect(gpt.usage).toMatchObject({
      input_tokens: 10,
      output_tokens: 272,
      input_tokens_details: { text_tokens: 10 },
    });
    const edit = await client.images.edit({
      model: 'gpt-image-1',
      image: await toFile(Buffer.from('fake-png'), 'in.png', { type: 'image/png' }),
      prompt: 'add a hat',
    });
    expect(edit.data?.[0]?.b64_json).toBeTruthy();
    expect(fake.requests[3]?.files?.image).toMatchObject({ filename: 'in.png', size: 8 });
    expect(fake.requests[3]?.model).toBe('gpt-image-1');
  });

  it('returns speech audio as a binary body', async () => {
    const res = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello' });
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    const audio = Buffer.from(await res.arrayBuffer());
    expect(audio.length).toBe(2048);
    expect(audio.subarray(0, 3).toString()).toBe('ID3');
  });

  it('transcribes and translates a multipart upload in json and text formats', async () => {
    const file = await toFile(Buffer.alloc(5000, 1), 'speech.mp3', { type: 'audio/mpeg' });
    const json = await client.audio.transcriptions.create({ file, model: 'gpt-4o-transcribe' });
    expect(json.text).toBe('Hello from the fake upstream.');
    expect(json.usage).toMatchObject({ type: 'tokens', input_tokens: 10, output_tokens: 5 });
    const rec = fake.requests[0];
    expect(rec?.model).toBe('gpt-4o-transcribe');
    expect(rec?.files?.file).toEqual({ filename: 'speech.mp3', size: 5000, contentType: 'audio/mpeg' });

    const text = await client.audio.transcriptions.create({
      file: await toFile(Buffer.alloc(10), 'a.wav'),
      model: 'whisper-1',
      response_format: 'text',
    });
    expect(text).toBe('Hello from the fake upstream.\n');
    const whisper = await client.audio.transcriptions.create({
      file: await toFile(Buffer.alloc(10), 'a.wav'),
      model: 'whisper-1',
    });
    expect(whisper.usage).toEqual({ type: 'duration', seconds: 2 });
    const translated = await client.audio.translations.create({
      file: await toFile(Buffer.alloc(10), 'a.wav'),
      model: 'whisper-1',
    });
    expect(translated.text).toBe('Hello from the fake upstream.');
  });

  it('answers moderations and lists models', async () => {
    const mod = await client.moderations.create({
      model: 'omni-moderation-latest',
      input: ['I will kill it', 'hello'],
    });
    expect(mod.results.map((r) => r.flagged)).toEqual([true, false]);
    const models = [];
    for await (const m of client.models.list()) models.push(m.id);
    expect(models).toContain('gpt-4o-mini');
    expect((await client.models.retrieve('gpt-4o')).id).toBe('gpt-4o');
    await expect(client.models.retrieve('nope')).rejects.toMatchObject({
      status: 404,
      code: 'model_not_found',
    });
  });

  it('raises OpenAI errors the client understands', async () => {
    const wrongKey = new OpenAI({ apiKey: 'sk-wrong', baseURL: `${fake.url}/v1`, maxRetries: 0 });
    const err = await wrongKey.chat.completions
      .create({ model: 'gpt-4o', messages: [] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect(err).toMatchObject({ status: 401, code: 'invalid_api_key', type: 'invalid_request_error' });
    expect(fake.requests[0]?.authorization).toBe('Bearer sk-wrong');

    fake.setScenario(fakeErrors.insufficientQuota(), { times: 1 });
    await expect(client.chat.completions.create({ model: 'gpt-4o', messages: [] })).rejects.toMatchObject({
      status: 429,
      code: 'insufficient_quota',
      type: 'insufficient_quota',
    });
    // One-shot: the next request succeeds.
    expect((await client.chat.completions.create({ model: 'gpt-4o', messages: [] })).choices).toHaveLength(1);

    for (const [scenario, status] of [
      [fakeErrors.badRequest(), 400],
      [fakeErrors.forbidden(), 403],
      [fakeErrors.rateLimited(), 429],
      [fakeErrors.serverError(), 500],
    ] as const) {
      fake.setScenario(scenario, { times: 1 });
      await expect(client.chat.completions.create({ model: 'gpt-4o', messages: [] })).rejects.toMatchObject({
        status,
      });
    }
  });

  it('fails a client stream on a mid-stream error event', async () => {
    fake.setScenario({ kind: 'ok', content: 'a b c d e', errorAfterEvents: 3 });
    const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [], stream: true });
    let text = '';
    const err = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).message).toContain('The server had an error');
    expect(text).toBe('a b ');
  });
});

describe('fake upstream scenarios on the wire', () => {
  it('picks scenarios by model, newest first, with one-shot rules before standing ones', async () => {
    fake.setScenario({ kind: 'ok', content: 'global' });
    fake.setScenario({ kind: 'ok', content: 'for mini' }, { model: 'gpt-4o-mini' });
    fake.setScenario(fakeErrors.serverError(), { model: 'gpt-4o-mini', times: 1 });
    const ask = async (model: string) => {
      const res = await post('/v1/chat/completions', { model, messages: [] });
      return res.status === 200
        ? ((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content
        : res.status;
    };
    expect(await ask('gpt-4o-mini')).toBe(500);
    expect(await ask('gpt-4o-mini')).toBe('for mini');
    expect(await ask('gpt-4o')).toBe('global');
  });

  it('serves JSON without usage and SSE with usage forced or never', async () => {
    fake.setScenario({ kind: 'ok', usage: 'never' });
    const json = (await (await post('/v1/chat/completions', { model: 'm', messages: [] })).json()) as Record<
      string,
      unknown
    >;
    expect(json.usage).toBeUndefined();

    fake.setScenario({ kind: 'ok', usage: 'always', content: 'x y' });
    const sse = await (await post('/v1/chat/completions', { model: 'm', messages: [], stream: true })).text();
    const events = sse.split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(JSON.parse(events.at(-2)?.slice(6) ?? '')).toMatchObject({
      choices: [],
      usage: { completion_tokens: 2 },
    });

    fake.setScenario({ kind: 'ok', usage: 'never' });
    const none = await (
      await post('/v1/chat/completions', {
        model: 'm',
        messages: [],
        stream: true,
        stream_options: { include_usage: true },
      })
    ).text();
    expect(none).not.toContain('"prompt_tokens"');
    expect(none).toContain('"usage":null');
  });

  it('streams legacy completions and reasoning content', async () => {
    fake.setScenario({ kind: 'ok', content: 'hi', reasoning: 'think first' });
    const chat = await (
      await post('/v1/chat/completions', { model: 'deepseek-reasoner', messages: [], stream: true })
    ).text();
    expect(chat).toContain('"reasoning_content":"think "');
    const legacy = await (
      await post('/v1/completions', { model: 'gpt-3.5-turbo-instruct', prompt: 'x', stream: true })
    ).text();
    expect(legacy).toContain('"object":"text_completion"');
    expect(legacy).toContain('"text":"hi"');
  });

  it('delays the first byte and the chunks', async () => {
    fake.setScenario({ kind: 'ok', content: 'a b c', firstByteDelayMs: 150, chunkDelayMs: 60 });
    const started = Date.now();
    const res = await post('/v1/chat/completions', { model: 'm', messages: [], stream: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    const afterHeaders = Date.now();
    await res.text();
    // Role chunk, three words, finish chunk, [DONE]: five pauses of 60 ms after the first event.
    expect(Date.now() - afterHeaders).toBeGreaterThanOrEqual(5 * 60 - 20);
  });

  it('breaks a stream by destroying the socket', async () => {
    fake.setScenario({ kind: 'ok', content: 'a b c d', breakAfterEvents: 2 });
    const res = await post('/v1/chat/completions', { model: 'm', messages: [], stream: true });
    expect(res.status).toBe(200);
    const reader = res.body?.getReader();
    if (!reader) throw new Error('no body');
    let received = '';
    const failure = await (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return null;
        received += Buffer.from(value).toString();
      }
    })().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    expect(received.split('\n\n').filter(Boolean)).toHaveLength(2);
    expect(received).not.toContain('[DONE]');
  });

  it('answers raw error bodies and honours the Azure deployment path and api-key header', async () => {
    fake.setScenario(fakeErrors.badGatewayHtml(), { times: 1 });
    const html = await post('/v1/chat/completions', { model: 'm', messages: [] });
    expect(html.status).toBe(502);
    expect(html.headers.get('content-type')).toBe('text/html');
    expect(await html.text()).toContain('<title>502 Bad Gateway</title>');

    const azure = await fetch(
      `${fake.url}/openai/deployments/my-gpt4o/chat/completions?api-version=2024-10-21`,
      {
        method: 'POST',
        headers: { 'api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [] }),
      },
    );
    expect(azure.status).toBe(200);
    expect(((await azure.json()) as { model: string }).model).toBe('my-gpt4o');
    const rec = fake.requests.at(-1);
    expect(rec?.query.get('api-version')).toBe('2024-10-21');
    expect(rec?.headers['api-key']).toBe(KEY);
    expect(rec?.authorization).toBeUndefined();
  });

  it('reranks in the Jina/Cohere shape and 404s unknown paths', async () => {
    const res = await post('/v1/rerank', {
      model: 'jina-reranker-v2',
      query: 'q',
      documents: ['a', 'b', 'c'],
      top_n: 2,
    });
    const body = (await res.json()) as {
      results: { index: number; relevance_score: number }[];
      usage: unknown;
    };
    expect(body.results.map((r) => r.index)).toEqual([0, 1]);
    expect(body.results[0]?.relevance_score).toBeGreaterThan(body.results[1]?.relevance_score ?? 1);
    expect(body.usage).toEqual({ total_tokens: 10, prompt_tokens: 10 });
    const unknown = await post('/v1/nothing', {});
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'unknown_url' } });
  });
});

import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ChannelConfigError } from '../upstream-request.js';
import {
  buildOpenAiRequest,
  customPathsFromPlugin,
  type InboundBody,
  OPENAI_ENDPOINTS,
  type OpenAiChannel,
  type OpenAiEndpoint,
  parseModelHeaders,
  UnsupportedEndpointError,
  UpstreamAddresses,
} from './request.js';

const openai: OpenAiChannel = { type: 1, baseUrl: '', key: 'sk-upstream', other: '' };

function json(text: string): InboundBody {
  return { kind: 'json', raw: Buffer.from(text), value: JSON.parse(text) as Record<string, unknown> };
}

function build(
  channel: OpenAiChannel,
  endpoint: OpenAiEndpoint,
  body: InboundBody,
  upstreamModel = 'gpt-4o',
) {
  return buildOpenAiRequest({ channel, endpoint, upstreamModel, body });
}

function bodyText(b: Buffer | Readable | undefined): string {
  if (!Buffer.isBuffer(b)) throw new Error('expected a buffer body');
  return b.toString('utf8');
}

describe('buildOpenAiRequest: URL and headers', () => {
  it('uses the catalog base URL with one path per endpoint', () => {
    for (const endpoint of OPENAI_ENDPOINTS) {
      const r = build(
        openai,
        endpoint,
        endpoint === 'models' ? { kind: 'none' } : json('{"model":"gpt-4o"}'),
      );
      expect(r.url).toBe(`https://api.openai.com/v1/${endpoint}`);
      expect(r.origin).toBe('https://api.openai.com');
      expect(r.path).toBe(`/v1/${endpoint}`);
      expect(r.method).toBe(endpoint === 'models' ? 'GET' : 'POST');
    }
    const models = build(openai, 'models', { kind: 'none' });
    expect(models.body).toBeUndefined();
    expect(models.headers['content-length']).toBeUndefined();
  });

  it('sends the key as a Bearer token, JSON framing, and no compression', () => {
    const raw = '{"model":"gpt-4o","messages":[]}';
    const r = build(openai, 'chat/completions', json(raw));
    expect(r.headers).toEqual({
      authorization: 'Bearer sk-upstream',
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(raw)),
      'accept-encoding': 'identity',
    });
  });

  it('adds /v1 to a bare origin, keeps a path as given, and keeps a query', () => {
    const custom = { type: 8, key: 'k', other: '' };
    expect(
      build({ ...custom, baseUrl: 'http://127.0.0.1:9000' }, 'embeddings', json('{"model":"m"}'), 'm').url,
    ).toBe('http://127.0.0.1:9000/v1/embeddings');
    expect(
      build({ ...custom, baseUrl: 'https://api.groq.com/openai/v1/' }, 'chat/completions', json('{}')).url,
    ).toBe('https://api.groq.com/openai/v1/chat/completions');
    expect(build({ ...custom, baseUrl: 'https://gw.example/api/v1?team=a' }, 'rerank', json('{}')).path).toBe(
      '/api/v1/rerank?team=a',
    );
    expect(build({ type: 47, baseUrl: '', key: 'jina_x', other: '' }, 'rerank', json('{}')).url).toBe(
      'https://api.jina.ai/v1/rerank',
    );
  });

  it('fills {account_id} from an ACCOUNT|TOKEN key', () => {
    const r = build(
      { type: 35, baseUrl: '', key: 'acc42|cf-token', other: '' },
      'chat/completions',
      json('{}'),
    );
    expect(r.url).toBe('https://api.cloudflare.com/client/v4/accounts/acc42/ai/v1/chat/completions');
    expect(r.headers.authorization).toBe('Bearer cf-token');
    expect(() =>
      build({ type: 35, baseUrl: '', key: 'no-bar', other: '' }, 'chat/completions', json('{}')),
    ).toThrow(ChannelConfigError);
  });

  it('refuses a channel without a usable base URL', () => {
    expect(() =>
      build({ type: 8, baseUrl: '', key: 'k', other: '' }, 'chat/completions', json('{}')),
    ).toThrow(ChannelConfigError);
    expect(() =>
      build({ type: 8, baseUrl: 'ftp://x', key: 'k', other: '' }, 'chat/completions', json('{}')),
    ).toThrow(ChannelConfigError);
  });

  it('builds the Azure deployment form with api-key and api-version', () => {
    const azure: OpenAiChannel = {
      type: 3,
      baseUrl: 'https://res.openai.azure.com/',
      key: 'az-key',
      other: '',
    };
    const r = build(azure, 'chat/completions', json('{"model":"gpt-4o","messages":[]}'));
    expect(r.url).toBe(
      'https://res.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21',
    );
    expect(r.headers['api-key']).toBe('az-key');
    expect(r.headers.authorization).toBeUndefined();
    const v = build(
      { ...azure, other: '2025-01-01-preview' },
      'audio/transcriptions',
      {
        kind: 'multipart',
        contentType: 'multipart/form-data; boundary=b',
        body: Buffer.from('--b\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper\r\n--b--\r\n'),
        model: 'whisper',
      },
      'whisper',
    );
    expect(v.path).toBe('/openai/deployments/whisper/audio/transcriptions?api-version=2025-01-01-preview');
    expect(build(azure, 'embeddings', json('{}'), 'my deploy/1').path).toBe(
      '/openai/deployments/my%20deploy%2F1/embeddings?api-version=2024-10-21',
    );
    expect(build(azure, 'models', { kind: 'none' }).path).toBe('/openai/models?api-version=2024-10-21');
    expect(() => build(azure, 'rerank', json('{}'))).toThrow(UnsupportedEndpointError);
  });

  it('merges model_headers last without letting them replace credentials or framing', () => {
    const headers = parseModelHeaders(
      JSON.stringify({
        'X-Team': 'blue',
        'HTTP-Referer': 'https://switchyard.example',
        Authorization: 'Bearer stolen',
        'api-key': 'other',
        'Content-Length': '1',
        'Content-Type': 'text/plain',
        'Accept-Encoding': 'gzip',
        Host: 'evil.example',
      }),
    );
    const r = build({ ...openai, headers }, 'chat/completions', json('{"model":"gpt-4o"}'));
    expect(r.headers.authorization).toBe('Bearer sk-upstream');
    expect(r.headers['api-key']).toBeUndefined();
    expect(r.headers['x-team']).toBe('blue');
    expect(r.headers['http-referer']).toBe('https://switchyard.example');
    expect(r.headers['content-length']).toBe('18');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['accept-encoding']).toBe('identity');
    expect(r.headers.host).toBeUndefined();
    // Without a key the gateway sends no credentials, so model_headers may.
    const keyless = build(
      { type: 8, baseUrl: 'http://vllm:8000', key: '', other: '', headers },
      'completions',
      json('{}'),
    );
    expect(keyless.headers.authorization).toBe('Bearer stolen');
  });

  it('parses model_headers defensively', () => {
    expect(parseModelHeaders('')).toEqual({});
    expect(parseModelHeaders('not json')).toEqual({});
    expect(parseModelHeaders('["a"]')).toEqual({});
    expect(
      parseModelHeaders('{"X-N": 3, "X-B": true, "X-Bad": "a\\r\\nInjected: 1", "Bad Name": "x", "X-O": {}}'),
    ).toEqual({ 'x-n': '3', 'x-b': 'true' });
  });

  it('uses and disables custom channel paths', () => {
    const paths = customPathsFromPlugin({ customize: { '1': '/chat', '3': 'disable', '99': '/x', '2': 5 } });
    expect(paths).toEqual({ 'chat/completions': '/chat', embeddings: 'disable' });
    const custom: OpenAiChannel = { type: 8, baseUrl: 'https://llm.example/api', key: 'k', other: '', paths };
    expect(build(custom, 'chat/completions', json('{}')).url).toBe('https://llm.example/api/chat');
    expect(build(custom, 'completions', json('{}')).url).toBe('https://llm.example/api/completions');
    expect(() => build(custom, 'embeddings', json('{}'))).toThrow(UnsupportedEndpointError);
    expect(customPathsFromPlugin(null)).toEqual({});
  });

  it("keeps a channel's addresses once worked out, and resolves a copy with another type afresh", () => {
    const paths = customPathsFromPlugin({ customize: { '3': 'disable' } });
    const channel: OpenAiChannel = {
      type: 8,
      baseUrl: 'https://llm.example/api?v=2',
      key: 'k',
      other: '',
      paths,
    };
    const fresh = build(channel, 'chat/completions', json('{}'));
    channel.addresses = new UpstreamAddresses(channel);
    for (let i = 0; i < 2; i++) {
      expect(build(channel, 'chat/completions', json('{}')).url).toBe(fresh.url);
      expect(build(channel, 'completions', json('{}')).url).toBe('https://llm.example/api/completions?v=2');
      expect(() => build(channel, 'embeddings', json('{}'))).toThrow(UnsupportedEndpointError);
    }
    // Azure and Qianfan build from a copy of the channel under their own type.
    const asAzure = build({ ...channel, type: 3 }, 'chat/completions', json('{}'));
    expect(asAzure.path).toBe('/api/openai/deployments/gpt-4o/chat/completions?v=2&api-version=2024-10-21');
    expect(asAzure.headers['api-key']).toBe('k');
    // A channel that cannot be resolved fails on every request, not only the first.
    const broken: OpenAiChannel = { type: 8, baseUrl: 'ftp://x', key: 'k', other: '' };
    broken.addresses = new UpstreamAddresses(broken);
    for (let i = 0; i < 2; i++) {
      expect(() => build(broken, 'chat/completions', json('{}'))).toThrow(ChannelConfigError);
    }
  });
});

describe('buildOpenAiRequest: JSON body', () => {
  it('forwards the original bytes when nothing must change', () => {
    const raw =
      '{ "model" : "gpt-4o",\n  "messages": [{"role":"user","content":"hi \\u00e9"}], "temperature": 0.70 }';
    const inbound = json(raw);
    const r = build(openai, 'chat/completions', inbound);
    expect(r.body).toBe(inbound.kind === 'json' ? inbound.raw : undefined);
    expect(bodyText(r.body)).toBe(raw);
    expect(r.rewritten).toBe(false);
    expect(r.stream).toBe(false);
    expect(r.dropUsageChunk).toBe(false);
  });

  it('substitutes the upstream model and keeps every other byte', () => {
    const raw = '{"model":"my-alias","input":["a","b"],"dimensions":256}';
    const r = build(openai, 'embeddings', json(raw), 'text-embedding-3-small');
    expect(bodyText(r.body)).toBe('{"model":"text-embedding-3-small","input":["a","b"],"dimensions":256}');
    expect(r.rewritten).toBe(true);
    expect(r.headers['content-length']).toBe(String(Buffer.byteLength(bodyText(r.body))));
    // A body without a model gets one.
    expect(
      JSON.parse(
        bodyText(build(openai, 'moderations', json('{"input":"x"}'), 'omni-moderation-latest').body),
      ),
    ).toEqual({
      input: 'x',
      model: 'omni-moderation-latest',
    });
  });

  it('asks a supporting upstream for usage on a stream and marks the chunk to drop', () => {
    const raw = '{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"hi"}],"top_p":1.0}';
    const r = build(openai, 'chat/completions', json(raw));
    expect(bodyText(r.body)).toBe(
      '{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"hi"}],"top_p":1.0,"stream_options":{"include_usage":true}}',
    );
    expect(r).toMatchObject({ stream: true, rewritten: true, clientWantsUsage: false, dropUsageChunk: true });
    // Existing options are kept and include_usage switched on.
    const off = build(
      openai,
      'completions',
      json(
        '{"model":"gpt-4o","stream":true,"stream_options":{"include_usage":false,"include_obfuscation":false}}',
      ),
    );
    expect(JSON.parse(bodyText(off.body)).stream_options).toEqual({
      include_usage: true,
      include_obfuscation: false,
    });
    expect(off.dropUsageChunk).toBe(true);
  });

  it('leaves a stream alone when the client asked for usage itself', () => {
    const raw = '{"model":"gpt-4o","stream":true,"stream_options":{"include_usage":true}}';
    const inbound = json(raw);
    const r = build(openai, 'chat/completions', inbound);
    expect(r.body).toBe(inbound.kind === 'json' ? inbound.raw : undefined);
    expect(r).toMatchObject({
      stream: true,
      rewritten: false,
      clientWantsUsage: true,
      dropUsageChunk: false,
    });
  });

  it('does not add include_usage for upstreams that do not take it, unless the channel says so', () => {
    const raw = '{"model":"m","stream":true}';
    const custom: OpenAiChannel = { type: 8, baseUrl: 'http://llm.local', key: 'k', other: '' };
    const plain = build(custom, 'chat/completions', json(raw), 'm');
    expect(bodyText(plain.body)).toBe(raw);
    expect(plain.dropUsageChunk).toBe(false);
    const deepseek = build(
      { type: 28, baseUrl: '', key: 'k', other: '' },
      'chat/completions',
      json(raw),
      'm',
    );
    expect(deepseek.dropUsageChunk).toBe(true);
    const forced = build({ ...custom, includeUsage: true }, 'chat/completions', json(raw), 'm');
    expect(JSON.parse(bodyText(forced.body)).stream_options).toEqual({ include_usage: true });
    const refused = build({ ...openai, includeUsage: false }, 'chat/completions', json(raw), 'm');
    expect(bodyText(refused.body)).toBe(raw);
  });

  it('removes stream_options from a request that does not stream', () => {
    const raw = '{"model":"gpt-4o","stream":false,"stream_options":{"include_usage":true},"messages":[]}';
    const r = build(openai, 'chat/completions', json(raw));
    expect(bodyText(r.body)).toBe('{"model":"gpt-4o","stream":false,"messages":[]}');
    expect(r).toMatchObject({
      stream: false,
      clientWantsUsage: false,
      dropUsageChunk: false,
      rewritten: true,
    });
    expect(
      bodyText(build(openai, 'chat/completions', json('{"stream_options":null,"model":"gpt-4o"}')).body),
    ).toBe('{"model":"gpt-4o"}');
  });

  it('edits a large body without re-serialising it', () => {
    const image = `data:image/png;base64,${Buffer.alloc(3_000_000, 1).toString('base64')}`;
    const raw = JSON.stringify({
      model: 'alias',
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: image } }] }],
    });
    const r = build(openai, 'chat/completions', json(raw));
    const out = bodyText(r.body);
    expect(out.length).toBe(
      raw.length + '"gpt-4o"'.length - '"alias"'.length + ',"stream_options":{"include_usage":true}'.length,
    );
    expect(JSON.parse(out).messages[0].content[0].image_url.url).toBe(image);
  });
});

describe('buildOpenAiRequest: multipart body', () => {
  const type = 'multipart/form-data; boundary=XyZ';
  const form = (model: string) =>
    Buffer.from(
      `--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n` +
        `ID3-bytes\r\n--XyZ\r\nContent-Disposition: form-data; name="model"\r\n\r\n${model}\r\n--XyZ--\r\n`,
    );

  it('forwards an unchanged form as is, with its length', () => {
    const body = form('whisper-1');
    const r = build(
      openai,
      'audio/transcriptions',
      { kind: 'multipart', contentType: type, body, model: 'whisper-1' },
      'whisper-1',
    );
    expect(r.body).toBe(body);
    expect(r.rewritten).toBe(false);
    expect(r.headers['content-type']).toBe(type);
    expect(r.headers['content-length']).toBe(String(body.length));
  });

  it('rewrites the model field of a buffered form', () => {
    const r = build(
      openai,
      'audio/translations',
      { kind: 'multipart', contentType: type, body: form('alias'), model: 'alias' },
      'whisper-1',
    );
    expect(r.rewritten).toBe(true);
    expect(Buffer.isBuffer(r.body) && r.body.equals(form('whisper-1'))).toBe(true);
    expect(r.headers['content-length']).toBe(String(form('whisper-1').length));
  });

  it('rewrites a streamed form and sends it chunked', async () => {
    const body = form('alias');
    const source = Readable.from([body.subarray(0, 7), body.subarray(7, 90), body.subarray(90)]);
    const r = build(
      openai,
      'images/edits',
      { kind: 'multipart', contentType: type, body: source, length: body.length },
      'gpt-image-1',
    );
    expect(r.headers['content-length']).toBeUndefined();
    const chunks: Buffer[] = [];
    for await (const c of r.body as Readable) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(form('gpt-image-1'))).toBe(true);
  });

  it('refuses a multipart body without a boundary', () => {
    expect(() =>
      build(openai, 'images/edits', {
        kind: 'multipart',
        contentType: 'multipart/form-data',
        body: Buffer.alloc(0),
      }),
    ).toThrow(ChannelConfigError);
  });
});

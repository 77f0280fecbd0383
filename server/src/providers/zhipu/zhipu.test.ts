import { createHmac } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../../test/fake-upstream.js';
import { ChannelConfigError } from '../upstream-request.js';
import { buildZhipuRequest, zhipuPluginTools } from './request.js';
import { signZhipuToken, ZhipuTokenCache } from './token.js';

const KEY = 'a1b2c3.s3cr3t';

function decode(token: string) {
  const [h = '', c = '', s = ''] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(h, 'base64url').toString()),
    claims: JSON.parse(Buffer.from(c, 'base64url').toString()),
    valid: createHmac('sha256', 's3cr3t').update(`${h}.${c}`).digest('base64url') === s,
  };
}

describe('Zhipu token', () => {
  it('signs HS256 with sign_type SIGN and millisecond claims', () => {
    const t = decode(signZhipuToken(KEY, 1_700_000_000_000));
    expect(t.header).toEqual({ alg: 'HS256', sign_type: 'SIGN' });
    expect(t.claims).toEqual({ api_key: 'a1b2c3', exp: 1_700_003_600_000, timestamp: 1_700_000_000_000 });
    expect(t.valid).toBe(true);
  });

  it('refuses a key that is not id.secret', () => {
    expect(() => signZhipuToken('nodot', 1)).toThrow(ChannelConfigError);
    expect(() => signZhipuToken('.secret', 1)).toThrow(ChannelConfigError);
  });

  it('reuses a token until five minutes before it expires', () => {
    let now = 1_000_000;
    const cache = new ZhipuTokenCache({ now: () => now });
    const first = cache.token(KEY);
    now += 54 * 60 * 1000;
    expect(cache.token(KEY)).toBe(first);
    now += 2 * 60 * 1000;
    expect(cache.token(KEY)).not.toBe(first);
  });
});

describe('Zhipu request', () => {
  let fake: FakeUpstream;
  beforeAll(async () => {
    fake = await startFakeUpstream();
  });
  afterAll(() => fake.close());

  it('reads the plugin tools', () => {
    expect(
      zhipuPluginTools({
        retrieval: { knowledge_id: ' kb1 ', prompt_template: 'Use {{knowledge}} for {{question}}' },
        web_search: { enable: true },
      }),
    ).toEqual([
      {
        type: 'retrieval',
        retrieval: { knowledge_id: 'kb1', prompt_template: 'Use {{knowledge}} for {{question}}' },
      },
      { type: 'web_search', web_search: { enable: true } },
    ]);
    expect(zhipuPluginTools({ retrieval: { knowledge_id: '' }, web_search: { enable: false } })).toEqual([]);
  });

  it('sends a signed Bearer token and appends the plugin tools to the client tools', async () => {
    const value = {
      model: 'glm-4.6',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'f' } }],
    };
    const r = buildZhipuRequest(
      {
        channel: { type: 16, baseUrl: fake.url, key: KEY, other: '' },
        endpoint: 'chat/completions',
        upstreamModel: 'glm-4.6',
        body: { kind: 'json', raw: Buffer.from(JSON.stringify(value)), value },
        plugin: { web_search: { enable: true } },
      },
      new ZhipuTokenCache(),
    );
    const res = await request(r.url, { method: r.method, headers: r.headers, body: r.body as Buffer });
    await res.body.dump();
    const rec = fake.requests.at(-1);
    const token = decode(String(rec?.authorization).replace(/^Bearer /, ''));
    expect(token.valid).toBe(true);
    expect(token.claims.api_key).toBe('a1b2c3');
    expect(rec?.json?.tools).toEqual([
      { type: 'function', function: { name: 'f' } },
      { type: 'web_search', web_search: { enable: true } },
    ]);
  });

  it('leaves the body alone without plugin tools', () => {
    const raw = Buffer.from('{"model":"glm-4","input":"x"}');
    const r = buildZhipuRequest(
      {
        channel: { type: 16, baseUrl: '', key: KEY, other: '' },
        endpoint: 'embeddings',
        upstreamModel: 'glm-4',
        body: { kind: 'json', raw, value: { model: 'glm-4', input: 'x' } },
        plugin: { web_search: { enable: true } },
      },
      new ZhipuTokenCache(),
    );
    expect(r.body).toBe(raw);
    expect(r.url).toBe('https://open.bigmodel.cn/api/paas/v4/embeddings');
  });
});

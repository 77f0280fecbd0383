import { describe, expect, it } from 'vitest';
import { ChannelConfigError } from '../upstream-request.js';
import { ANTHROPIC_DEFAULT_VERSION, buildAnthropicRequest } from './request.js';

const channel = { type: 14, baseUrl: '', key: 'sk-ant-test', headers: {} };

function json(value: Record<string, unknown>) {
  const raw = Buffer.from(JSON.stringify(value, null, 1));
  return { kind: 'json' as const, raw, value };
}

describe('buildAnthropicRequest', () => {
  it('sends the client bytes unchanged to the catalog default URL with x-api-key and the default version', () => {
    const body = json({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [], stream: true });
    const req = buildAnthropicRequest({
      channel,
      endpoint: 'messages',
      upstreamModel: 'claude-sonnet-4-5',
      body,
    });
    expect(req.url).toBe('https://api.anthropic.com/v1/messages');
    expect(req.origin).toBe('https://api.anthropic.com');
    expect(req.method).toBe('POST');
    expect(req.body).toBe(body.raw);
    expect(req.rewritten).toBe(false);
    expect(req.stream).toBe(true);
    expect(req.headers).toMatchObject({
      'x-api-key': 'sk-ant-test',
      'anthropic-version': ANTHROPIC_DEFAULT_VERSION,
      'content-type': 'application/json',
      'content-length': String(body.raw.length),
      'accept-encoding': 'identity',
    });
    expect(req.headers.authorization).toBeUndefined();
  });

  it('passes the client version and beta flags through and splices only the model', () => {
    const body = json({ model: 'claude-x', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    const req = buildAnthropicRequest({
      channel: { ...channel, baseUrl: 'https://proxy.example/anthropic/v1/' },
      endpoint: 'messages',
      upstreamModel: 'claude-opus-4-1',
      body,
      clientVersion: '2023-01-01',
      clientBeta: 'interleaved-thinking-2025-05-14',
    });
    expect(req.url).toBe('https://proxy.example/anthropic/v1/messages');
    expect(req.headers['anthropic-version']).toBe('2023-01-01');
    expect(req.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
    expect(req.rewritten).toBe(true);
    expect(JSON.parse(String(req.body))).toEqual({ ...body.value, model: 'claude-opus-4-1' });
    expect(req.stream).toBe(false);
  });

  it('serialises a translated body, lists models with GET, and keeps credentials from model_headers', () => {
    const req = buildAnthropicRequest({
      channel: {
        ...channel,
        baseUrl: 'http://127.0.0.1:9/',
        headers: { 'x-api-key': 'other', 'x-extra': '1', host: 'h' },
      },
      endpoint: 'messages/count_tokens',
      upstreamModel: 'claude-haiku-4-5',
      body: { kind: 'object', value: { messages: [{ role: 'user', content: 'hi' }] } },
    });
    expect(req.url).toBe('http://127.0.0.1:9/v1/messages/count_tokens');
    expect(JSON.parse(String(req.body))).toEqual({
      messages: [{ role: 'user', content: 'hi' }],
      model: 'claude-haiku-4-5',
    });
    expect(req.headers['x-api-key']).toBe('sk-ant-test');
    expect(req.headers['x-extra']).toBe('1');
    expect(req.headers.host).toBeUndefined();

    const models = buildAnthropicRequest({
      channel,
      endpoint: 'models',
      upstreamModel: '',
      body: { kind: 'none' },
    });
    expect(models).toMatchObject({
      method: 'GET',
      url: 'https://api.anthropic.com/v1/models',
      body: undefined,
    });
    expect(models.headers['content-length']).toBeUndefined();
  });

  it('rejects unusable base URLs', () => {
    const body = { kind: 'none' as const };
    expect(() =>
      buildAnthropicRequest({
        channel: { ...channel, baseUrl: 'ftp://x' },
        endpoint: 'models',
        upstreamModel: '',
        body,
      }),
    ).toThrow(ChannelConfigError);
  });
});

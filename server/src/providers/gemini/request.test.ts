import { describe, expect, it } from 'vitest';
import { ChannelConfigError } from '../upstream-request.js';
import { buildGeminiRequest } from './request.js';

const channel = { type: 25, baseUrl: '', key: 'AIza-test', other: '', headers: {} };

describe('buildGeminiRequest', () => {
  it('calls generateContent under the default version with x-goog-api-key and the client bytes', () => {
    const raw = Buffer.from('{"contents":[{"parts":[{"text":"hi"}]}]}');
    const req = buildGeminiRequest({
      channel,
      action: 'generateContent',
      upstreamModel: 'gemini-2.5-flash',
      body: { kind: 'json', raw },
    });
    expect(req.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
    );
    expect(req.body).toBe(raw);
    expect(req.rewritten).toBe(false);
    expect(req.stream).toBe(false);
    expect(req.headers).toMatchObject({ 'x-goog-api-key': 'AIza-test', 'content-type': 'application/json' });
  });

  it('streams with alt=sse, takes the version from the channel and strips a models/ prefix', () => {
    const req = buildGeminiRequest({
      channel: { ...channel, other: 'v1', baseUrl: 'http://127.0.0.1:9/proxy/?tenant=a' },
      action: 'streamGenerateContent',
      upstreamModel: 'models/gemini-2.5-pro',
      body: { kind: 'object', value: { contents: [] } },
    });
    expect(req.url).toBe(
      'http://127.0.0.1:9/proxy/v1/models/gemini-2.5-pro:streamGenerateContent?tenant=a&alt=sse',
    );
    expect(req.stream).toBe(true);
    expect(req.rewritten).toBe(true);
    expect(String(req.body)).toBe('{"contents":[]}');
  });

  it('keeps a version already in the base URL and lists models with GET', () => {
    const req = buildGeminiRequest({
      channel: { ...channel, baseUrl: 'https://gw.example/v1alpha', other: 'v1' },
      action: 'models',
      upstreamModel: '',
      body: { kind: 'none' },
    });
    expect(req).toMatchObject({ method: 'GET', url: 'https://gw.example/v1alpha/models', body: undefined });
  });

  it('does not let model_headers replace the key, and rejects a bad version', () => {
    const req = buildGeminiRequest({
      channel: { ...channel, headers: { 'x-goog-api-key': 'x', 'x-goog-user-project': 'p' } },
      action: 'countTokens',
      upstreamModel: 'gemini-2.5-flash',
      body: { kind: 'object', value: {} },
    });
    expect(req.headers['x-goog-api-key']).toBe('AIza-test');
    expect(req.headers['x-goog-user-project']).toBe('p');
    expect(() =>
      buildGeminiRequest({
        channel: { ...channel, other: 'v1/../x' },
        action: 'models',
        upstreamModel: '',
        body: { kind: 'none' },
      }),
    ).toThrow(ChannelConfigError);
  });
});

import { describe, expect, it } from 'vitest';
import { ChannelConfigError } from '../upstream-request.js';
import { bedrockBody, buildBedrockRequest, parseBedrockKey } from './request.js';

const channel = { type: 32, baseUrl: '', key: 'us-west-2|AKIDEXAMPLE|secret', headers: {} };
const body = {
  kind: 'json' as const,
  value: { model: 'claude', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hi' }] },
};
const NOW = new Date('2025-01-02T03:04:05Z');

describe('Bedrock key', () => {
  it('reads access keys, session tokens and API keys', () => {
    expect(parseBedrockKey('us-east-1|AK|SK')).toEqual({
      kind: 'sigv4',
      region: 'us-east-1',
      accessKeyId: 'AK',
      secretAccessKey: 'SK',
    });
    expect(parseBedrockKey(' eu-central-1|AK|SK|TOKEN ')).toMatchObject({ sessionToken: 'TOKEN' });
    expect(parseBedrockKey('us-gov-west-1|ABSK123')).toEqual({
      kind: 'apiKey',
      region: 'us-gov-west-1',
      apiKey: 'ABSK123',
    });
  });

  it('refuses keys without a region or with missing parts', () => {
    expect(() => parseBedrockKey('AK|SK')).toThrow(ChannelConfigError);
    expect(() => parseBedrockKey('us-east-1')).toThrow(/Region\|AccessKeyID/);
    expect(() => parseBedrockKey('us-east-1||SK')).toThrow(ChannelConfigError);
  });
});

describe('Bedrock request', () => {
  it('streams through invoke-with-response-stream on the regional endpoint, signed', () => {
    const r = buildBedrockRequest({
      channel,
      upstreamModel: 'us.anthropic.claude-sonnet-4-20250514-v1:0',
      body,
      clientBeta: 'interleaved-thinking-2025-05-14, token-efficient-tools-2025-02-19',
      now: NOW,
    });
    expect(r.origin).toBe('https://bedrock-runtime.us-west-2.amazonaws.com');
    expect(r.path).toBe('/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/invoke-with-response-stream');
    expect(r.stream).toBe(true);
    expect(r.headers.accept).toBe('application/vnd.amazon.eventstream');
    expect(r.headers['x-amz-date']).toBe('20250102T030405Z');
    expect(r.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20250102\/us-west-2\/bedrock\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/,
    );
    const sent = JSON.parse(String(r.body));
    expect(sent).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
      anthropic_beta: ['interleaved-thinking-2025-05-14', 'token-efficient-tools-2025-02-19'],
    });
    expect(r.headers['content-length']).toBe(String((r.body as Buffer).length));
  });

  it('uses invoke for a non-stream body, a base URL override and a Bearer API key', () => {
    const r = buildBedrockRequest({
      channel: {
        ...channel,
        baseUrl: 'https://vpce-1.bedrock-runtime.us-west-2.vpce.amazonaws.com/',
        key: 'us-west-2|ABSKkey',
      },
      upstreamModel: 'anthropic.claude-3-5-haiku-20241022-v1:0',
      body: { kind: 'object', value: { model: 'x', max_tokens: 5, messages: [] } },
      now: NOW,
    });
    expect(r.url).toBe(
      'https://vpce-1.bedrock-runtime.us-west-2.vpce.amazonaws.com/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke',
    );
    expect(r.headers.authorization).toBe('Bearer ABSKkey');
    expect(r.headers['x-amz-date']).toBeUndefined();
    expect(r.stream).toBe(false);
  });

  it('refuses models that are not Claude', () => {
    expect(() =>
      buildBedrockRequest({ channel, upstreamModel: 'meta.llama3-70b-instruct-v1:0', body }),
    ).toThrow(/Claude models only/);
  });

  it('keeps an anthropic_version the client cannot override and a body-level beta list', () => {
    expect(bedrockBody({ anthropic_version: 'x', anthropic_beta: ['a'] }, 'b')).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      anthropic_beta: ['a'],
    });
  });
});

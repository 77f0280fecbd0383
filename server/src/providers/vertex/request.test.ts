import { describe, expect, it } from 'vitest';
import { ChannelConfigError } from '../upstream-request.js';
import type { ServiceAccount } from './access-token.js';
import { buildVertexRequest, parseVertexLocation, vertexClaudeBody, vertexPublisher } from './request.js';

const SA = JSON.stringify({
  client_email: 'a@p.iam.gserviceaccount.com',
  private_key: 'k',
  project_id: 'sa-proj',
});
/** Hands out a fixed token: these tests look at URLs and bodies, not at the exchange. */
const tokens = { accessToken: async (_a: ServiceAccount) => 'ya29.test' } as never;
const channel = (other: string, baseUrl = '') => ({
  type: 42,
  baseUrl,
  key: SA,
  other,
  headers: { 'x-extra': '1' },
});

describe('Vertex location and family', () => {
  it('reads Region|ProjectID, defaulting the project to the service account', () => {
    expect(parseVertexLocation('us-east5|my-proj', { projectId: 'sa' })).toEqual({
      region: 'us-east5',
      project: 'my-proj',
    });
    expect(parseVertexLocation('europe-west1', { projectId: 'sa' })).toEqual({
      region: 'europe-west1',
      project: 'sa',
    });
    expect(() => parseVertexLocation('', { projectId: 'sa' })).toThrow(ChannelConfigError);
    expect(() => parseVertexLocation('us-east5', { projectId: '' })).toThrow(/project is missing/);
    expect(() => parseVertexLocation('us east', { projectId: 'p' })).toThrow(/invalid Vertex AI region/);
  });

  it('sends Claude models to the Anthropic publisher', () => {
    expect(vertexPublisher('claude-sonnet-4@20250514')).toBe('anthropic');
    expect(vertexPublisher('gemini-2.5-pro')).toBe('google');
  });
});

describe('Vertex request', () => {
  it('streams Gemini with alt=sse on the regional host, the body byte for byte', async () => {
    const raw = Buffer.from('{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}');
    const r = await buildVertexRequest(
      {
        channel: channel('us-central1|p1'),
        upstreamModel: 'gemini-2.5-flash',
        body: { kind: 'json', raw, value: {} },
        stream: true,
      },
      tokens,
    );
    expect(r.url).toBe(
      'https://us-central1-aiplatform.googleapis.com/v1/projects/p1/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
    expect(r.body).toBe(raw);
    expect(r.rewritten).toBe(false);
    expect(r.headers).toMatchObject({
      authorization: 'Bearer ya29.test',
      'x-extra': '1',
      'content-type': 'application/json',
    });
  });

  it('uses the global host and countTokens', async () => {
    const r = await buildVertexRequest(
      {
        channel: channel('global'),
        upstreamModel: 'gemini-2.5-pro',
        body: { kind: 'object', value: { contents: [] } },
        stream: false,
        countTokens: true,
      },
      tokens,
    );
    expect(r.url).toBe(
      'https://aiplatform.googleapis.com/v1/projects/sa-proj/locations/global/publishers/google/models/gemini-2.5-pro:countTokens',
    );
  });

  it('sends Claude to rawPredict / streamRawPredict with the Vertex anthropic_version and no model', async () => {
    const value = {
      model: 'claude-sonnet-4',
      max_tokens: 10,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    };
    const r = await buildVertexRequest(
      {
        channel: channel('us-east5|p2', 'http://127.0.0.1:9/'),
        upstreamModel: 'claude-sonnet-4@20250514',
        body: { kind: 'json', raw: Buffer.from(''), value },
        stream: true,
      },
      tokens,
    );
    expect(r.url).toBe(
      'http://127.0.0.1:9/v1/projects/p2/locations/us-east5/publishers/anthropic/models/claude-sonnet-4%4020250514:streamRawPredict',
    );
    expect(JSON.parse(String(r.body))).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      max_tokens: 10,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const plain = await buildVertexRequest(
      {
        channel: channel('us-east5|p2'),
        upstreamModel: 'claude-haiku-4-5@20251001',
        body: { kind: 'object', value },
        stream: false,
      },
      tokens,
    );
    expect(plain.path.endsWith(':rawPredict')).toBe(true);
    expect(JSON.parse(String(plain.body)).stream).toBeUndefined();
  });

  it('keeps the platform anthropic_version even when the client sent one', () => {
    expect(vertexClaudeBody({ anthropic_version: '2023-06-01', model: 'x' }, false)).toEqual({
      anthropic_version: 'vertex-2023-10-16',
    });
  });
});

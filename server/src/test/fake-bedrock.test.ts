import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventStreamDecoder } from '../providers/bedrock/event-stream.js';
import { type FakeBedrock, startFakeBedrock } from './fake-bedrock.js';

let fake: FakeBedrock;
beforeAll(async () => {
  fake = await startFakeBedrock({ apiKey: 'ABSK' });
});
afterAll(() => fake.close());

const body = JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 5, messages: [] });

async function post(path: string, headers: Record<string, string>, payload = body) {
  const res = await request(`${fake.url}${path}`, { method: 'POST', headers, body: payload });
  return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
}

describe('fake Bedrock', () => {
  it('refuses an unsigned request and a body whose hash differs from x-amz-content-sha256', async () => {
    const unsigned = await post('/model/anthropic.claude-x/invoke', {});
    expect(unsigned.status).toBe(403);
    expect(unsigned.headers['x-amzn-errortype']).toMatch(/^UnrecognizedClientException:/);
    const wrongHash = await post('/model/anthropic.claude-x/invoke', {
      authorization: `AWS4-HMAC-SHA256 Credential=AK/20250101/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'a'.repeat(64)}`,
      'x-amz-date': '20250101T000000Z',
      'x-amz-content-sha256': '0'.repeat(64),
    });
    expect(JSON.parse(wrongHash.body.toString()).message).toMatch(/x-amz-content-sha256/);
  });

  it('validates the body like Bedrock: anthropic_version required, no model field', async () => {
    const auth = { authorization: 'Bearer ABSK' };
    const noVersion = await post('/model/m/invoke', auth, JSON.stringify({ max_tokens: 1, messages: [] }));
    expect(noVersion.status).toBe(400);
    const withModel = await post(
      '/model/m/invoke',
      auth,
      JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', model: 'm' }),
    );
    expect(JSON.parse(withModel.body.toString()).message).toMatch(/extraneous key \[model\]/);
  });

  it('frames a stream as CRC-checked event-stream messages with base64 chunks', async () => {
    const res = await post('/model/m/invoke-with-response-stream', { authorization: 'Bearer ABSK' });
    const messages = new EventStreamDecoder().push(res.body);
    expect(messages.length).toBeGreaterThan(4);
    for (const m of messages) expect(m.headers[':event-type']).toBe('chunk');
    const first = JSON.parse(
      Buffer.from(JSON.parse(messages[0]?.payload.toString() ?? '{}').bytes, 'base64').toString(),
    );
    expect(first.type).toBe('message_start');
  });
});

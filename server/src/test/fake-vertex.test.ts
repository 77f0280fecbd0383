import { generateKeyPairSync } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeVertex, startFakeVertex } from './fake-vertex.js';

const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
let fake: FakeVertex;
beforeAll(async () => {
  fake = await startFakeVertex({ publicKey, clientEmail: 'x@y' });
});
afterAll(() => fake.close());

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const res = await request(`${fake.url}${path}`, { method: 'POST', body, headers });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, unknown> };
}

describe('fake Vertex', () => {
  it('answers the token endpoint in OAuth error form for a bad grant or JWT', async () => {
    expect(await post('/token', 'grant_type=password')).toEqual({
      status: 400,
      json: { error: 'invalid_grant', error_description: 'Invalid grant_type' },
    });
    const bad = await post(
      '/token',
      'grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=a.b',
    );
    expect(bad.json.error_description).toBe('Invalid JWT');
  });

  it('refuses model calls without an issued token, in Google error shape', async () => {
    const path = '/v1/projects/p/locations/us-east5/publishers/google/models/gemini-2.5-pro:generateContent';
    expect(await post(path, '{}', { authorization: 'Bearer ya29.made-up' })).toEqual({
      status: 401,
      json: {
        error: {
          code: 401,
          message: 'Request had invalid authentication credentials. Expected OAuth 2 access token.',
          status: 'UNAUTHENTICATED',
        },
      },
    });
    expect((await post('/v1/elsewhere', '{}')).status).toBe(404);
  });
});

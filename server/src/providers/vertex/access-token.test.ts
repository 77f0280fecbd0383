import { generateKeyPairSync, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeVertex, startFakeVertex } from '../../test/fake-vertex.js';
import { ChannelConfigError } from '../upstream-request.js';
import {
  CLOUD_PLATFORM_SCOPE,
  parseServiceAccount,
  type ServiceAccount,
  serviceAccountAssertion,
  VertexAuthError,
  VertexTokenCache,
} from './access-token.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const EMAIL = 'relay@proj-1.iam.gserviceaccount.com';

let fake: FakeVertex;
let account: ServiceAccount;

beforeAll(async () => {
  // Tokens live 450 s here, so the cache's 300 s margin is crossed within the fake's 300 s clock skew.
  fake = await startFakeVertex({ publicKey, clientEmail: EMAIL, tokenDelayMs: 30, expiresIn: 450 });
  account = parseServiceAccount(
    JSON.stringify({
      type: 'service_account',
      project_id: 'proj-1',
      private_key_id: 'kid-1',
      private_key: PEM,
      client_email: EMAIL,
      token_uri: fake.tokenUri,
    }),
  );
});
afterAll(() => fake.close());

describe('service account', () => {
  it('reads the JSON key and defaults the token URI', () => {
    const a = parseServiceAccount(JSON.stringify({ client_email: 'a@b', private_key: PEM }));
    expect(a.tokenUri).toBe('https://oauth2.googleapis.com/token');
    expect(a.projectId).toBe('');
  });

  it('refuses something that is not a service-account JSON', () => {
    expect(() => parseServiceAccount('AIzaSyNotJson')).toThrow(ChannelConfigError);
    expect(() => parseServiceAccount('{"client_email":"x"}')).toThrow(/private_key/);
  });

  it('signs an RS256 assertion with the documented claims', () => {
    const jwt = serviceAccountAssertion(account, 1_700_000_000);
    const [h = '', c = '', s = ''] = jwt.split('.');
    expect(JSON.parse(Buffer.from(h, 'base64url').toString())).toEqual({
      alg: 'RS256',
      typ: 'JWT',
      kid: 'kid-1',
    });
    expect(JSON.parse(Buffer.from(c, 'base64url').toString())).toEqual({
      iss: EMAIL,
      scope: CLOUD_PLATFORM_SCOPE,
      aud: fake.tokenUri,
      iat: 1_700_000_000,
      exp: 1_700_003_600,
    });
    expect(verify('RSA-SHA256', Buffer.from(`${h}.${c}`), publicKey, Buffer.from(s, 'base64url'))).toBe(true);
  });

  it('reports a private key that is not one', () => {
    expect(() => serviceAccountAssertion({ ...account, privateKey: 'nope' }, 1)).toThrow(ChannelConfigError);
  });
});

describe('access-token cache', () => {
  it('exchanges once for concurrent callers and reuses the token until near expiry', async () => {
    let now = Date.now();
    const cache = new VertexTokenCache({ now: () => now, refreshMarginSeconds: 300 });
    const before = fake.tokenRequests;
    const tokens = await Promise.all(Array.from({ length: 20 }, () => cache.accessToken(account)));
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).toMatch(/^ya29\.fake-/);
    expect(fake.tokenRequests - before).toBe(1);
    now += 100 * 1000;
    expect(await cache.accessToken(account)).toBe(tokens[0]);
    // Within five minutes of the expiry: a new exchange.
    now += 100 * 1000;
    const next = await cache.accessToken(account);
    expect(next).not.toBe(tokens[0]);
    expect(cache.exchanges).toBe(2);
  });

  it('drops a token on invalidate', async () => {
    const cache = new VertexTokenCache();
    const a = await cache.accessToken(account);
    cache.invalidate(account);
    expect(await cache.accessToken(account)).not.toBe(a);
  });

  it('turns a refused exchange into a 401 for the channel, and retries next time', async () => {
    const { privateKey: other } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const wrong = { ...account, privateKey: other.export({ type: 'pkcs8', format: 'pem' }).toString() };
    const cache = new VertexTokenCache();
    const err = await cache.accessToken(wrong).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VertexAuthError);
    expect((err as VertexAuthError).status).toBe(400);
    expect((err as VertexAuthError).toUpstreamError()).toMatchObject({
      status: 401,
      code: 'invalid_grant',
      message: 'token exchange failed (400): Invalid JWT Signature.',
    });
    await expect(cache.accessToken(wrong)).rejects.toThrow(VertexAuthError);
    expect(cache.exchanges).toBe(2);
  });

  it('reports an unreachable token endpoint as 502', async () => {
    const cache = new VertexTokenCache({ timeoutMs: 2000 });
    const err = (await cache
      .accessToken({ ...account, tokenUri: 'http://127.0.0.1:1/token' })
      .catch((e) => e)) as VertexAuthError;
    expect(err.toUpstreamError().status).toBe(502);
  });
});

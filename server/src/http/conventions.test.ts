import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, registerUser, type TestApp } from '../test/test-app.js';

describe('HTTP conventions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { API_BODY_LIMIT: '2kb' } });
  });
  afterAll(async () => t?.close());

  const countUsers = () => t.s.repos.users.count();

  it('answers malformed JSON with 400 invalid_json and writes nothing', async () => {
    const before = await countUsers();
    const res = await t.call({
      method: 'POST',
      url: '/api/user/register',
      headers: { 'content-type': 'application/json' },
      payload: '{"username": "mallory", "password": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, code: 'invalid_json' });
    expect(await countUsers()).toBe(before);
  });

  it('answers wrong types and unknown fields with 400 naming the field', async () => {
    const wrongType = await t.call({
      method: 'POST',
      url: '/api/user/register',
      payload: { username: 42, password: 'password-1' },
    });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().message).toContain('username');
    expect(wrongType.json().errors[0].path).toBe('username');
    const extra = await t.call({
      method: 'POST',
      url: '/api/user/register',
      payload: { username: 'mallory', password: 'password-1', role: 100 },
    });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().message).toContain('role');
    expect(await t.s.repos.users.byUsername('mallory')).toBeUndefined();
  });

  it('answers an oversized body with 400 payload_too_large and writes nothing', async () => {
    const before = await countUsers();
    const res = await t.call({
      method: 'POST',
      url: '/api/user/register',
      payload: { username: 'bigbody', password: 'password-1', aff_code: 'x'.repeat(4000) },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, code: 'payload_too_large' });
    expect(await countUsers()).toBe(before);
  });

  it('sends a request id back, keeping a well-formed one from the client', async () => {
    const own = await t.call({
      method: 'GET',
      url: '/api/status',
      headers: { 'x-request-id': 'client-req-0001' },
    });
    expect(own.headers['x-request-id']).toBe('client-req-0001');
    const generated = await t.call({
      method: 'GET',
      url: '/api/status',
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f]{24}$/);
  });

  it('answers unknown paths in the shape of their API', async () => {
    const api = await t.call({ method: 'GET', url: '/api/nope' });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toMatchObject({ success: false, code: 'not_found' });
    const relay = await t.call({ method: 'POST', url: '/v1/nope' });
    expect(relay.statusCode).toBe(404);
    expect(relay.json().error.message).toBe('Invalid URL (POST /v1/nope)');
  });

  it('answers a URL the router cannot decode in the shape of its API, with a request id', async () => {
    const api = await t.call({ method: 'GET', url: '/api/user/%E0%A4%A' });
    expect(api.statusCode).toBe(400);
    expect(api.json()).toEqual({
      success: false,
      message: 'Malformed URL: /api/user/%E0%A4%A is not valid percent-encoding',
      code: 'invalid_request',
    });
    expect(api.headers['x-request-id']).toMatch(/^[0-9a-f]{24}$/);
    const relay = await t.call({ method: 'POST', url: '/v1/chat/completions%zz', payload: {} });
    expect(relay.statusCode).toBe(400);
    expect(relay.json()).toEqual({
      error: {
        message: 'Malformed URL: /v1/chat/completions%zz is not valid percent-encoding',
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    });
    const other = await t.call({ method: 'GET', url: '/%zz' });
    expect(other.statusCode).toBe(400);
    expect(other.headers['content-type']).toMatch(/^text\/plain/);
  });

  it('accepts paths with and without a trailing slash', async () => {
    await registerUser(t, 'slashy');
    const cookie = await t.signIn('slashy', 'password-123');
    expect((await t.call({ method: 'GET', url: '/api/user/self/', headers: { cookie } })).statusCode).toBe(
      200,
    );
  });
});

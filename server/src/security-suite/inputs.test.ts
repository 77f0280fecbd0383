import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ZodType } from 'zod';
import { apiRoutes } from '../api/routes.js';
import { MAX_JSON_DEPTH } from '../http/json-depth.js';
import { engineTargets } from '../test/databases.js';
import { createToken } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, type TestApp } from '../test/test-app.js';

// Issue #25 item 4, replayed on every engine: a NUL in any filter of any list route, in any path
// parameter and in a body string is a 400 naming the field (it was a 500 on PostgreSQL); a body
// nested thousands of levels deep is a 400 on the management API and on the relay, both paths.

/** The keys a query schema reads (through zod's wrappers), for the filters to poison. */
function queryKeys(schema: ZodType | undefined): string[] {
  let s = schema as unknown as { shape?: Record<string, unknown>; def?: Record<string, unknown> } | undefined;
  for (let i = 0; s && i < 8; i++) {
    if (s.shape) return Object.keys(s.shape);
    const def = s.def ?? {};
    s = (def.in ?? def.innerType ?? def.schema) as typeof s;
  }
  return [];
}

const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`hostile inputs on ${target.engine}`, () => {
    let t: TestApp;
    let root = '';
    beforeAll(async () => {
      t = await createTestApp({ engine: target });
      root = await t.signIn('root', ROOT_PASSWORD);
    });
    afterAll(async () => t?.close());

    it('refuses a NUL in every filter of every list route, naming it', async () => {
      const lists = apiRoutes.filter((r) => r.method === 'GET' && !r.url.includes(':'));
      let probes = 0;
      for (const r of lists) {
        for (const key of [...new Set([...queryKeys(r.query), 'keyword'])]) {
          const res = await t.call({
            method: 'GET',
            url: `${r.url}?${key}=a%00b`,
            headers: { cookie: root },
          });
          expect(res.statusCode, `${r.url} ${key}: ${res.body}`).toBe(400);
          expect(res.json().message, r.url).toBe(
            `Invalid query: ${key} holds a NUL character or invalid UTF-16`,
          );
          probes++;
        }
      }
      // The filters of the log, token, user, channel and redemption lists are among them.
      expect(probes).toBeGreaterThan(60);
    });

    it('refuses a NUL in every path parameter, naming it', async () => {
      const withParams = apiRoutes.filter((r) => r.url.includes(':'));
      for (const r of withParams) {
        const url = r.url.replace(/:[A-Za-z_]+/g, 'a%00b');
        const res = await t.call({
          method: r.method,
          url,
          headers: { cookie: root },
          ...(r.method === 'GET' || r.method === 'DELETE' ? {} : { payload: {} }),
        });
        expect(res.statusCode, `${r.method} ${r.url}: ${res.body}`).toBe(400);
        expect(res.json().message).toMatch(/^Invalid path: \w+ holds a NUL/);
      }
    });

    it('refuses a NUL in a body string, naming the field', async () => {
      const res = await t.call({
        method: 'POST',
        url: '/api/token',
        headers: { cookie: root, 'content-type': 'application/json' },
        payload:
          '{"name":"a\\u0000b","expired_time":-1,"remain_quota":0,"unlimited_quota":true,"models":["x","y\\u0000"]}',
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('Invalid body: name holds a NUL character or invalid UTF-16');
    });

    it('refuses deep bodies on the API and on the relay with 400', async () => {
      const channel = await t.call({
        method: 'POST',
        url: '/api/channel',
        headers: { cookie: root, 'content-type': 'application/json' },
        payload: `{"type":1,"name":"deep","key":"k","models":["m"],"group":"default","custom_parameter":${deep(5000)}}`,
      });
      expect(channel.statusCode).toBe(400);
      expect(channel.json().message).toBe(`Invalid body: nested deeper than ${MAX_JSON_DEPTH} levels`);

      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      const { key } = await createToken(t, root);
      const body = `{"model":"gpt-4o","messages":[{"role":"user","content":${deep(5000)}}]}`;
      for (const query of ['', '?via=fastify']) {
        for (const path of ['/v1/chat/completions', '/v1/messages', '/v1/responses', '/v1/embeddings']) {
          const res = await request(`${origin}${path}${query}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'x-api-key': key, 'content-type': 'application/json' },
            body,
          });
          const text = await res.body.text();
          expect(res.statusCode, `${path}${query}: ${text}`).toBe(400);
          expect(text).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels`);
        }
      }
    });
  });
}

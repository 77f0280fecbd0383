import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineTargets } from '../test/databases.js';
import { createToken } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, type TestApp } from '../test/test-app.js';

// Text the database cannot store (a NUL, a lone surrogate) is refused with 400 at the edge, in query
// strings, path parameters, API bodies and a relay call's model, on every engine: PostgreSQL would
// refuse the NUL after the call was served.

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`request text on ${target.engine}`, () => {
    let t: TestApp;
    let root = '';

    beforeAll(async () => {
      t = await createTestApp({ engine: target });
      root = await t.signIn('root', ROOT_PASSWORD);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('refuses a filter holding a NUL or a lone surrogate with 400', async () => {
      for (const value of ['gpt%004o', '%ED%A0%80', 'x%00']) {
        const res = await t.call({
          method: 'GET',
          url: `/api/log?model_name=${value}`,
          headers: { cookie: root },
        });
        if (value === '%ED%A0%80') {
          // Bytes that are not UTF-8 decode to U+FFFD: a filter that matches nothing, not an error.
          expect(res.statusCode).toBe(200);
          continue;
        }
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ success: false });
      }
      const clean = await t.call({
        method: 'GET',
        url: '/api/log?model_name=gpt-4o',
        headers: { cookie: root },
      });
      expect(clean.statusCode).toBe(200);
    });

    it('refuses a body string holding a NUL or a lone surrogate with 400 naming the field', async () => {
      for (const payload of [
        '{"name":"to\\u0000ken","expired_time":-1,"remain_quota":0,"unlimited_quota":true}',
        '{"name":"token\\ud800","expired_time":-1,"remain_quota":0,"unlimited_quota":true}',
      ]) {
        const res = await t.call({
          method: 'POST',
          url: '/api/token',
          headers: { cookie: root, 'content-type': 'application/json' },
          payload,
        });
        expect(res.statusCode).toBe(400);
        expect(res.json().message).toMatch(/^Invalid body: name holds a NUL/);
      }
      const list = await t.call({ method: 'GET', url: '/api/token?keyword=to', headers: { cookie: root } });
      expect((list.json().data as { data: unknown[] }).data).toHaveLength(0);
    });

    it("refuses a relay call whose model holds a NUL with 400 in the client's dialect", async () => {
      const { key } = await createToken(t, root);
      const res = await t.call({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: '{"model":"gpt-4o\\u0000","messages":[{"role":"user","content":"hi"}]}',
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: { param: 'model' } });
    });
  });
}

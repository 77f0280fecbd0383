import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineTargets } from '../../test/databases.js';
import { type FakeLark, startFakeLark } from '../../test/fake-lark.js';
import { type FakeWeChatServer, startFakeWeChatServer } from '../../test/fake-wechat-server.js';
import { createTestApp, registerUser, type TestApp } from '../../test/test-app.js';

const SERVER = 'http://console.test';
const cookiesOf = (res: LightMyRequestResponse) => res.cookies.map((c) => `${c.name}=${c.value}`).join('; ');

for (const engine of engineTargets()) {
  describe.skipIf(engine.skipReason !== undefined)(
    `Lark, WeChat and email binding on ${engine.engine}`,
    () => {
      let t: TestApp;
      let lark: FakeLark;
      let wechat: FakeWeChatServer;

      beforeAll(async () => {
        lark = await startFakeLark({ appId: 'cli_fake', appSecret: 'lark-secret' });
        wechat = await startFakeWeChatServer('wechat-token');
        t = await createTestApp({ engine, env: { LARK_API_URL: lark.url } });
        await t.s.options.update({
          ServerAddress: SERVER,
          LarkClientId: 'cli_fake',
          LarkClientSecret: 'lark-secret',
          LarkAuthEnabled: 'true',
          WeChatServerAddress: wechat.url,
          WeChatServerToken: 'wechat-token',
          WeChatAuthEnabled: 'true',
        });
      });
      afterAll(async () => {
        await t?.close();
        await lark?.close();
        await wechat?.close();
      });

      async function larkCallback(code: string, cookie?: string) {
        const stateRes = await t.call({
          method: 'GET',
          url: '/api/oauth/state',
          headers: cookie ? { cookie } : {},
        });
        const browser = [cookie, cookiesOf(stateRes)].filter(Boolean).join('; ');
        return t.call({
          method: 'GET',
          url: '/api/oauth/lark',
          query: { code, state: stateRes.json().data },
          headers: { cookie: browser },
        });
      }

      it('signs up through Lark as lark_<n> with the Lark name, signs in again, and refuses a reused code', async () => {
        const user = { open_id: 'ou_fake1', name: '飞书用户', email: 'lark@corp.test' };
        const code = lark.issueCode(user, `${SERVER}/oauth/lark`);
        const res = await larkCallback(code);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().data.username).toMatch(/^lark_\d+$/);
        expect(res.json().data.display_name).toBe('飞书用户');
        const row = (await t.s.repos.users.byUsername(res.json().data.username))!;
        expect(row).toMatchObject({ lark_id: 'ou_fake1', email: 'lark@corp.test' });

        const again = await larkCallback(lark.issueCode(user, `${SERVER}/oauth/lark`));
        expect(again.json().data.id).toBe(row.id);

        const reused = await larkCallback(code);
        expect(reused.statusCode).toBe(400);
        expect(reused.json().message).toContain('The authorization code is not found or has expired.');
      });

      it('signs in and binds with a WeChat code, refusing a wrong or reused code', async () => {
        const code = wechat.issueCode('wx-openid-1');
        const res = await t.call({ method: 'GET', url: '/api/oauth/wechat', query: { code } });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().data.username).toMatch(/^wechat_\d+$/);
        const reused = await t.call({ method: 'GET', url: '/api/oauth/wechat', query: { code } });
        expect(reused.statusCode).toBe(400);
        expect(reused.json()).toMatchObject({ code: 'oauth_failed' });
        expect(reused.json().message).toContain('无效或过期的验证码');

        const id = await registerUser(t, `wx_${engine.engine}`);
        const cookie = await t.signIn(`wx_${engine.engine}`, 'password-123');
        const bind = await t.call({
          method: 'GET',
          url: '/api/oauth/wechat/bind',
          query: { code: wechat.issueCode('wx-openid-2') },
          headers: { cookie },
        });
        expect(bind.json()).toMatchObject({ success: true, message: 'bind' });
        expect((await t.s.repos.users.byId(id))!.wechat_id).toBe('wx-openid-2');
        const taken = await t.call({
          method: 'GET',
          url: '/api/oauth/wechat/bind',
          query: { code: wechat.issueCode('wx-openid-1') },
          headers: { cookie },
        });
        expect(taken.json().code).toBe('oauth_already_bound');

        await t.s.options.update({ WeChatServerToken: 'stale' });
        try {
          const refused = await t.call({
            method: 'GET',
            url: '/api/oauth/wechat',
            query: { code: wechat.issueCode('x') },
          });
          expect(refused.json().message).toContain('access token 无效');
        } finally {
          await t.s.options.update({ WeChatServerToken: 'wechat-token' });
        }
      });

      it('binds an email with the mailed code, once, and never one another account uses', async () => {
        const id = await registerUser(t, `mail_${engine.engine}`);
        const cookie = await t.signIn(`mail_${engine.engine}`, 'password-123');
        await t.s.codes.set('verify:new@mail.test', '123456', 600);
        const wrong = await t.call({
          method: 'GET',
          url: '/api/oauth/email/bind',
          query: { email: 'new@mail.test', code: '000000' },
          headers: { cookie },
        });
        expect(wrong.json().code).toBe('invalid_verification_code');
        await t.s.codes.set('verify:new@mail.test', '123456', 600);
        const ok = await t.call({
          method: 'GET',
          url: '/api/oauth/email/bind',
          query: { email: 'new@mail.test', code: '123456' },
          headers: { cookie },
        });
        expect(ok.json()).toMatchObject({ success: true, message: 'bind' });
        expect((await t.s.repos.users.byId(id))!.email).toBe('new@mail.test');
      });
    },
  );
}

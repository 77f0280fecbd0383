import type { Access } from '@switchyard/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../test/test-app.js';
import { apiRoutes } from './routes.js';

// The declared least role of every management route. A new route must be added here on purpose;
// the test then proves the running app enforces the whole allow/deny matrix.
const EXPECTED: Record<string, Access> = {
  'GET /api/status': 'guest',
  'GET /api/notice': 'guest',
  'GET /api/about': 'guest',
  'GET /api/home_page_content': 'guest',
  'GET /api/model_ownedby': 'guest',
  'GET /api/user_group_map': 'guest',
  'POST /api/user/register': 'guest',
  'POST /api/user/login': 'guest',
  'GET /api/user/logout': 'guest',
  'GET /api/verification': 'guest',
  'GET /api/reset_password': 'guest',
  'POST /api/user/reset': 'guest',
  'GET /api/oauth/state': 'guest',
  'GET /api/oauth/endpoint': 'guest',
  'GET /api/oauth/github': 'guest',
  'GET /api/oauth/oidc': 'guest',
  'GET /api/oauth/lark': 'guest',
  'GET /api/oauth/wechat': 'guest',
  'GET /api/oauth/wechat/bind': 'user',
  'GET /api/oauth/email/bind': 'user',
  'POST /api/user/unbind': 'user',
  'POST /api/webauthn/registration/begin': 'user',
  'POST /api/webauthn/registration/finish': 'user',
  'POST /api/webauthn/login/begin': 'guest',
  'POST /api/webauthn/login/finish': 'guest',
  'GET /api/webauthn/credentials': 'user',
  'PUT /api/webauthn/credentials/:id': 'user',
  'DELETE /api/webauthn/credentials/:id': 'user',
  'GET /api/user/self': 'user',
  'PUT /api/user/self': 'user',
  'GET /api/user/token': 'user',
  'GET /api/user/dashboard': 'user',
  'GET /api/user/aff': 'user',
  'POST /api/user/topup': 'user',
  'GET /api/user': 'admin',
  'GET /api/user/:id': 'admin',
  'POST /api/user': 'admin',
  'PUT /api/user': 'admin',
  'DELETE /api/user/:id': 'admin',
  'POST /api/user/manage': 'admin',
  'POST /api/user/quota/:id': 'admin',
  'GET /api/user_group': 'admin',
  'GET /api/user_group/:id': 'admin',
  'POST /api/user_group': 'admin',
  'PUT /api/user_group': 'admin',
  'PUT /api/user_group/enable/:id': 'admin',
  'DELETE /api/user_group/:id': 'admin',
  'GET /api/group': 'admin',
  'GET /api/user/payment': 'user',
  'POST /api/user/order': 'user',
  'GET /api/user/order/status': 'user',
  'GET /api/payment': 'admin',
  'GET /api/payment/order': 'admin',
  'GET /api/payment/:id': 'admin',
  'POST /api/payment': 'admin',
  'PUT /api/payment': 'admin',
  'DELETE /api/payment/:id': 'admin',
  'GET /api/payment/notify/:uuid': 'guest',
  'POST /api/payment/notify/:uuid': 'guest',
  'GET /api/redemption': 'admin',
  'GET /api/redemption/export': 'admin',
  'GET /api/redemption/:id': 'admin',
  'GET /api/redemption/:id/key': 'admin',
  'POST /api/redemption': 'admin',
  'PUT /api/redemption': 'admin',
  'DELETE /api/redemption/:id': 'admin',
  'GET /api/ownedby': 'guest',
  'GET /api/model_ownedby/:id': 'admin',
  'POST /api/model_ownedby': 'admin',
  'PUT /api/model_ownedby': 'admin',
  'DELETE /api/model_ownedby/:id': 'admin',
  'GET /api/available_model': 'guest',
  'GET /api/token': 'user',
  'GET /api/token/playground': 'user',
  'GET /api/token/:id': 'user',
  'GET /api/token/:id/key': 'user',
  'POST /api/token': 'user',
  'PUT /api/token': 'user',
  'DELETE /api/token/:id': 'user',
  'GET /api/channel': 'admin',
  'GET /api/channel/:id': 'admin',
  'GET /api/channel/test': 'admin',
  'GET /api/channel/test/:id': 'admin',
  'GET /api/channel/:id/key': 'admin',
  'POST /api/channel': 'admin',
  'PUT /api/channel': 'admin',
  'DELETE /api/channel/:id': 'admin',
  'DELETE /api/channel/batch': 'admin',
  'DELETE /api/channel/disabled': 'admin',
  'PUT /api/channel/batch/azure_api': 'admin',
  'PUT /api/channel/batch/del_model': 'admin',
  'POST /api/channel/provider_models_list': 'admin',
  'GET /api/channel/update_balance': 'admin',
  'GET /api/channel/update_balance/:id': 'admin',
  'POST /api/channel/:id/copy': 'admin',
  'GET /api/channel_tag/_all': 'admin',
  'GET /api/channel_tag/:tag': 'admin',
  'GET /api/channel_tag/:tag/list': 'admin',
  'PUT /api/channel_tag/:tag': 'admin',
  'DELETE /api/channel_tag/:tag': 'admin',
  'DELETE /api/channel_tag/:tag/disabled': 'admin',
  'PUT /api/channel_tag/:tag/priority': 'admin',
  'PUT /api/channel_tag/:tag/status/:status': 'admin',
  'GET /api/prices': 'guest',
  'GET /api/prices/model_list': 'admin',
  'POST /api/prices/single': 'admin',
  'PUT /api/prices/single/*': 'admin',
  'DELETE /api/prices/single/*': 'admin',
  'POST /api/prices/multiple': 'admin',
  'PUT /api/prices/multiple/delete': 'admin',
  'POST /api/prices/sync': 'admin',
  'GET /api/log': 'admin',
  'DELETE /api/log': 'admin',
  'GET /api/log/stat': 'admin',
  'GET /api/log/dead_letters': 'admin',
  'GET /api/log/self': 'user',
  'GET /api/log/self/stat': 'user',
  'GET /api/mj': 'admin',
  'GET /api/mj/self': 'user',
  'GET /api/task': 'admin',
  'GET /api/task/self': 'user',
  'GET /api/option': 'root',
  'PUT /api/option': 'root',
  'POST /api/option/smtp/test': 'root',
  'DELETE /api/option/:key': 'root',
  'GET /api/option/telegram': 'root',
  'GET /api/option/telegram/status': 'root',
  'PUT /api/option/telegram/reload': 'root',
  'POST /api/telegram/webhook': 'guest',
  'GET /api/option/telegram/:id': 'root',
  'POST /api/option/telegram': 'root',
  'DELETE /api/option/telegram/:id': 'root',
  'GET /api/analytics/statistics': 'admin',
  'GET /api/analytics/period': 'admin',
};

const ROLES = ['guest', 'user', 'admin', 'root'] as const;
const RANK: Record<Access, number> = { guest: 0, user: 1, admin: 2, root: 3 };

describe('route policy', () => {
  let t: TestApp;
  // Fresh sessions for every route: the logout route ends the session it is called with.
  const signInAs = async (role: (typeof ROLES)[number]) => {
    if (role === 'guest') return undefined;
    if (role === 'root') return t.signIn('root', ROOT_PASSWORD);
    return t.signIn(role === 'admin' ? 'adminuser' : 'plainuser', 'password-123');
  };

  beforeAll(async () => {
    t = await createTestApp();
    await registerUser(t, 'plainuser');
    const adminId = await registerUser(t, 'adminuser');
    await t.s.repos.users.update(adminId, { role: 10 });
  });
  afterAll(async () => t?.close());

  it('declares exactly the expected routes and roles', () => {
    const declared = Object.fromEntries(apiRoutes.map((r) => [`${r.method} ${r.url}`, r.access]));
    expect(declared).toEqual(EXPECTED);
  });

  it('registers every route of the table in the app', () => {
    for (const r of apiRoutes)
      expect(t.app.hasRoute({ method: r.method, url: r.url }), `${r.method} ${r.url}`).toBe(true);
  });

  it('refuses to start when an /api route bypasses the table', async () => {
    const { default: Fastify } = await import('fastify');
    const app = Fastify();
    // Same guard as buildApp: prove it fires.
    app.addHook('onRoute', (opts) => {
      if (opts.url.startsWith('/api/') && !(opts.config as { access?: string } | undefined)?.access)
        throw new Error('outside table');
    });
    expect(() => app.get('/api/sneaky', async () => 'x')).toThrow('outside table');
    await app.close();
  });

  for (const [key, access] of Object.entries(EXPECTED)) {
    const [method, url] = key.split(' ') as ['GET' | 'POST' | 'PUT' | 'DELETE', string];
    it(`${key} is allowed from ${access} up and denied below`, async () => {
      for (const role of ROLES) {
        const cookie = await signInAs(role);
        const res = await t.call({
          method,
          url: url.replace(/:\w+/g, '1'),
          headers: cookie ? { cookie } : {},
          ...(method === 'GET' ? {} : { payload: {} }),
        });
        if (RANK[role] < RANK[access]) {
          expect(res.statusCode, `${role} on ${key}`).toBe(role === 'guest' ? 401 : 403);
        } else {
          expect([401, 403], `${role} on ${key} got ${res.statusCode} ${res.body}`).not.toContain(
            res.statusCode,
          );
        }
      }
    });
  }
});

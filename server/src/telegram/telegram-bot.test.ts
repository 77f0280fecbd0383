import { LogType } from '@switchyard/domain';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, engineTargets, type TestDatabase } from '../test/databases.js';
import { type FakeTelegram, startFakeTelegram } from '../test/fake-telegram.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../test/test-app.js';

// The messaging bot against a fake Telegram Bot API speaking the real JSON: long polling, the
// webhook, the built-in commands, the administrator's menu, and one poller across nodes.

const TIMING = {
  pollSeconds: 1,
  leaseRetryMs: 100,
  backoffFirstMs: 50,
  backoffMaxMs: 400,
  callTimeoutSeconds: 5,
};

let lastWarnings: string[] = [];

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; warnings: ${JSON.stringify(lastWarnings)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function startApp(
  fake: FakeTelegram,
  extra: Parameters<typeof createTestApp>[0] = {},
  warnings: string[] = [],
) {
  lastWarnings = warnings;
  return createTestApp({
    ...extra,
    env: { TELEGRAM_API_URL: fake.url, ...extra.env },
    overrides: { telegramTiming: TIMING, onWarning: (m) => warnings.push(m) },
  });
}

async function setOptions(t: TestApp, cookie: string, values: Record<string, string>) {
  for (const [key, value] of Object.entries(values)) {
    const res = await t.call({
      method: 'PUT',
      url: '/api/option/',
      headers: { cookie },
      payload: { key, value },
    });
    if (res.statusCode !== 200) throw new Error(`setting ${key} failed: ${res.body}`);
  }
}

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`the Telegram bot on ${target.engine}`, () => {
    let fake: FakeTelegram;
    let t: TestApp;
    let root: string;
    const warnings: string[] = [];
    const textsTo = (chat: number) => fake.sent.filter((m) => m.chat_id === chat).map((m) => m.text);
    /** Sends `text` as `user` and returns the bot's answer to it. */
    const ask = async (user: number, text: string, o: Parameters<FakeTelegram['message']>[2] = {}) => {
      const chat = o.chatId ?? user;
      const before = textsTo(chat).length;
      fake.message(user, text, o);
      await fake.waitForSent(() => textsTo(chat).length > before);
      return textsTo(chat)[before]!;
    };

    beforeEach(async () => {
      fake = await startFakeTelegram();
      warnings.length = 0;
      t = await startApp(fake, { engine: target }, warnings);
      root = await t.signIn('root', ROOT_PASSWORD);
    });
    afterEach(async () => {
      await t.close();
      await fake.close();
    });

    it('polls once a token is set: binds a user by access token, answers /balance, unbinds', async () => {
      expect((await t.call({ method: 'GET', url: '/api/status' })).json().data.telegram_bot).toBe('');
      await setOptions(t, root, { TelegramBotToken: fake.token, DisplayInCurrencyEnabled: 'false' });
      await until('the bot to connect', () => t.s.telegram.status().status);
      expect((await t.call({ method: 'GET', url: '/api/status' })).json().data.telegram_bot).toBe(
        fake.username,
      );
      const status = await t.call({
        method: 'GET',
        url: '/api/option/telegram/status',
        headers: { cookie: root },
      });
      expect(status.json().data).toEqual({ status: true, is_webhook: false });
      // The built-in commands are registered for Telegram's menu.
      expect(fake.commands.map((c) => c.command)).toEqual([
        'bind',
        'unbind',
        'balance',
        'recharge',
        'apikey',
        'aff',
      ]);

      const aliceId = await registerUser(t, 'alice');
      await t.s.repos.users.update(aliceId, { quota: 12345 });
      const alice = await t.signIn('alice', 'password-123');
      const accessToken = (
        await t.call({ method: 'GET', url: '/api/user/token', headers: { cookie: alice } })
      ).json().data as string;

      expect(await ask(7001, '/balance')).toMatch(/not linked/);
      expect(await ask(7001, '/bind not-a-token')).toMatch(/not valid/);
      expect((await t.s.repos.users.byId(aliceId))?.telegram_id).toBe(0);
      // /bind alone asks for the token, which then comes as a plain message.
      expect(await ask(7001, '/bind')).toMatch(/access token/);
      expect(await ask(7001, accessToken)).toMatch(/Linked to alice/);
      expect((await t.s.repos.users.byId(aliceId))?.telegram_id).toBe(7001);
      expect(await ask(7001, '/balance')).toBe('Balance: 12345\nUsed: 0');
      // Another Telegram account cannot take the same user.
      expect(await ask(7002, `/bind ${accessToken}`)).toMatch(/already linked to another Telegram account/);
      expect(await ask(7001, '/unbind')).toMatch(/Unlinked from alice/);
      expect((await t.s.repos.users.byId(aliceId))?.telegram_id).toBe(0);
      expect(await ask(7001, '/balance')).toMatch(/not linked/);
    });

    it('redeems a code once through /recharge: a second try is refused and the quota credited once', async () => {
      await setOptions(t, root, { TelegramBotToken: fake.token, DisplayInCurrencyEnabled: 'false' });
      const bobId = await registerUser(t, 'bob');
      const bob = await t.signIn('bob', 'password-123');
      const accessToken = (
        await t.call({ method: 'GET', url: '/api/user/token', headers: { cookie: bob } })
      ).json().data as string;
      const created = await t.call({
        method: 'POST',
        url: '/api/redemption/',
        headers: { cookie: root },
        payload: { name: 'tg', quota: 5000, count: 1 },
      });
      const [code] = created.json().data as string[];
      expect(await ask(8001, `/bind ${accessToken}`)).toMatch(/Linked to bob/);
      const before = Number((await t.s.repos.users.byId(bobId))?.quota);

      expect(await ask(8001, '/recharge')).toMatch(/redemption code/);
      expect(await ask(8001, code!)).toBe(`Redeemed 5000. Balance: ${before + 5000}`);
      expect(await ask(8001, `/recharge ${code}`)).toMatch(/already been used/);
      expect(await ask(8001, '/recharge NOT-A-CODE')).toMatch(/not valid/);
      expect(Number((await t.s.repos.users.byId(bobId))?.quota)).toBe(before + 5000);
      const topups = await t.s.database.db
        .selectFrom('logs')
        .select(['quota', 'source_ip'])
        .where('user_id', '=', bobId)
        .where('type', '=', LogType.Topup)
        .execute();
      expect(topups.map((r) => ({ quota: Number(r.quota), source_ip: r.source_ip }))).toEqual([
        { quota: 5000, source_ip: 'telegram' },
      ]);
    });

    it('answers the menu with its parse mode, unknown commands politely, limits each chat', async () => {
      const saved = await t.call({
        method: 'POST',
        url: '/api/option/telegram',
        headers: { cookie: root },
        payload: {
          command: 'pricing',
          description: 'Our prices',
          parse_mode: 'HTML',
          reply_message: '<b>Cheap</b>',
        },
      });
      expect(saved.statusCode).toBe(200);
      await setOptions(t, root, { TelegramBotToken: fake.token });
      await until('the bot to connect', () => t.s.telegram.status().status);
      expect(fake.commands.map((c) => c.command)).toContain('pricing');

      expect(await ask(9001, '/pricing')).toBe('<b>Cheap</b>');
      expect(fake.sent.at(-1)?.parse_mode).toBe('HTML');
      expect(await ask(9001, '/nosuch')).toBe('I do not know /nosuch. Send /help to see what I can do.');
      // A command addressed to another bot is left alone: the next answer is to /pricing.
      fake.message(9001, '/nosuch@other_bot', { chatType: 'group', chatId: -100 });
      expect(await ask(9001, '/pricing', { chatType: 'group', chatId: -100 })).toBe('<b>Cheap</b>');
      expect(await ask(9001, '/help', { language: 'zh-hans' })).toMatch(/^命令/);
      expect(await ask(9002, '/balance', { chatType: 'group', chatId: -100 })).toMatch(/private chat/);

      // A menu entry added later reaches Telegram's command list through the reload.
      await t.call({
        method: 'POST',
        url: '/api/option/telegram',
        headers: { cookie: root },
        payload: {
          command: 'contact',
          description: 'Write to us',
          parse_mode: 'MarkdownV2',
          reply_message: 'mail\\@x',
        },
      });
      const reloaded = await t.call({
        method: 'PUT',
        url: '/api/option/telegram/reload',
        headers: { cookie: root },
      });
      expect(reloaded.json().data).toEqual({ status: true, is_webhook: false });
      expect(fake.commands.map((c) => c.command)).toContain('contact');

      // 30 messages in a burst: the chat's first 20 per minute are answered, the rest dropped.
      const before = textsTo(9003).length;
      for (let i = 0; i < 30; i++) fake.message(9003, '/help');
      await fake.waitForSent(() => textsTo(9003).length >= before + 20);
      await until('the queue to drain', () => fake.getUpdatesCalls > 0 && fake.sent.length > 0);
      await new Promise((r) => setTimeout(r, 300));
      expect(textsTo(9003).length - before).toBe(20);
    });

    it('takes updates by webhook with the secret header, refuses a wrong secret, answers a redelivery once', async () => {
      await setOptions(t, root, {
        ServerAddress: 'https://gw.example.com',
        TelegramWebhookSecret: 'hook-secret_1',
        TelegramBotToken: fake.token,
      });
      await until('the webhook to be set', () => fake.webhook !== undefined && t.s.telegram.status().status);
      expect(fake.webhook).toEqual({
        url: 'https://gw.example.com/api/telegram/webhook',
        secret_token: 'hook-secret_1',
      });
      expect(t.s.telegram.status()).toEqual({ status: true, is_webhook: true });

      // The fake queues the update; here it is posted the way Telegram posts it to a webhook.
      const update = fake.message(4242, '/help');
      const post = (secret?: string) =>
        t.call({
          method: 'POST',
          url: '/api/telegram/webhook',
          headers: secret === undefined ? {} : { 'x-telegram-bot-api-secret-token': secret },
          payload: update,
        });
      expect((await post()).statusCode).toBe(401);
      expect((await post('wrong')).statusCode).toBe(401);
      expect(fake.sent).toEqual([]);
      expect((await post('hook-secret_1')).statusCode).toBe(200);
      expect(textsTo(4242)).toHaveLength(1);
      // Telegram delivers again when it saw no answer in time: the claim keeps it to one reply.
      expect((await post('hook-secret_1')).statusCode).toBe(200);
      expect(textsTo(4242)).toHaveLength(1);
      expect(
        (await t.call({ method: 'POST', url: '/api/telegram/webhook', payload: { nope: 1 } })).statusCode,
      ).toBe(400);

      // Back to polling: the webhook is deleted and the queued updates are answered.
      await setOptions(t, root, { TelegramWebhookSecret: '' });
      expect(
        (
          await t.call({
            method: 'POST',
            url: '/api/telegram/webhook',
            headers: { 'x-telegram-bot-api-secret-token': 'hook-secret_1' },
            payload: update,
          })
        ).statusCode,
      ).toBe(404);
      expect(await ask(4243, '/help')).toMatch(/^Commands/);
      expect(fake.webhook).toBeUndefined();
    });

    it('survives Telegram being away and a wrong token, and answers once it is back', async () => {
      fake.down = true;
      await setOptions(t, root, { TelegramBotToken: fake.token });
      await until('a warning about the failed start', () => warnings.some((w) => /could not start/.test(w)));
      expect(t.s.telegram.status().status).toBe(false);
      fake.message(5151, '/help');
      fake.down = false;
      await fake.waitForSent((sent) => sent.some((m) => m.chat_id === 5151));
      // Away while polling: the poller backs off and carries on.
      fake.down = true;
      await until('a warning about failed polling', () =>
        warnings.some((w) => /polling failed|answered getUpdates/.test(w)),
      );
      fake.message(5152, '/help');
      fake.down = false;
      await fake.waitForSent((sent) => sent.some((m) => m.chat_id === 5152));
      expect(textsTo(5151)).toHaveLength(1);

      // A token Telegram does not know: the bot stays off and says why, the server carries on.
      await setOptions(t, root, { TelegramBotToken: '999:AAThisTokenIsNotKnownToTheFakeApi_x' });
      await until('the 401 warning', () => warnings.some((w) => /401/.test(w)));
      expect(t.s.telegram.status().status).toBe(false);
      expect((await t.call({ method: 'GET', url: '/api/status' })).statusCode).toBe(200);
    });
  });
}

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined || target.engine === 'sqlite')(
    `long polling on two nodes sharing ${target.engine}`,
    () => {
      let fake: FakeTelegram;
      let db: TestDatabase;
      const apps: TestApp[] = [];
      beforeAll(async () => {
        fake = await startFakeTelegram();
        db = await createTestDatabase(target);
      });
      afterAll(async () => {
        for (const a of apps) await a.close().catch(() => {});
        await fake.close();
        await db.drop();
      });

      it('one node polls at a time and every update is answered once, also across a hand-over', async () => {
        for (const node of ['node-a', 'node-b'])
          apps.push(
            await startApp(fake, {
              env: {
                DATABASE_URL: db.url,
                NODE_ID: node,
                // Nodes sharing a database share its secrets (the bot token is stored sealed).
                SECRET_KEY: 'k'.repeat(40),
                SESSION_SECRET: 's'.repeat(40),
              },
            }),
          );
        const [a, b] = apps as [TestApp, TestApp];
        await setOptions(a, await a.signIn('root', ROOT_PASSWORD), { TelegramBotToken: fake.token });
        await b.s.options.reload();
        await until(
          'both nodes to connect',
          () => a.s.telegram.status().status && b.s.telegram.status().status,
        );

        const users = Array.from({ length: 30 }, (_, i) => 100 + i);
        for (const u of users) fake.message(u, '/balance');
        await fake.waitForSent((sent) => sent.length >= users.length);
        await new Promise((r) => setTimeout(r, 500));
        expect(fake.sent.map((m) => m.chat_id).sort()).toEqual(users);
        const claims = await a.s.database.db.selectFrom('telegram_updates').select(['node_id']).execute();
        expect(claims).toHaveLength(users.length);

        // The polling node stops: the other takes the lease over and answers what comes next.
        const lease = await a.s.database.db
          .selectFrom('job_leases')
          .select('holder')
          .where('name', '=', 'telegram-poll')
          .executeTakeFirstOrThrow();
        const [leader, other] = lease.holder === 'node-a' ? [a, b] : [b, a];
        await leader.close();
        apps.splice(apps.indexOf(leader), 1);
        const more = Array.from({ length: 10 }, (_, i) => 200 + i);
        for (const u of more) fake.message(u, '/balance');
        await fake.waitForSent((sent) => sent.length >= users.length + more.length);
        await new Promise((r) => setTimeout(r, 500));
        expect(fake.sent.map((m) => m.chat_id).sort()).toEqual([...users, ...more]);
        const holder = await other.s.database.db
          .selectFrom('job_leases')
          .select('holder')
          .where('name', '=', 'telegram-poll')
          .executeTakeFirstOrThrow();
        expect(holder.holder).toBe(lease.holder === 'node-a' ? 'node-b' : 'node-a');
        // Never two getUpdates at once (Telegram would end the first with 409).
        expect(fake.conflicts).toBe(0);
      });
    },
  );
}

import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmtpMailer } from '../mail/mailer.js';
import { engineTargets } from '../test/databases.js';
import { type FakeUpstream, startFakeUpstream } from '../test/fake-upstream.js';
import { createChannel, createToken, settled } from '../test/relay-fixtures.js';
import { startSmtpSink } from '../test/smtp-sink.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../test/test-app.js';
import { QuotaReminder } from './quota-reminder.js';

// QuotaRemindThreshold through the relay: a user whose settled balance goes below it gets one mail
// (through SMTP, to a real server standing in for the provider) per crossing, and two nodes seeing
// the same crossing send one mail between them.

const KEY = 'sk-upstream-remind';

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`quota reminder on ${target.engine}`, () => {
    let t: TestApp;
    let up: FakeUpstream;
    let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
    let gateway: string;
    let userId: number;
    let key: string;

    beforeAll(async () => {
      smtp = await startSmtpSink();
      up = await startFakeUpstream({ apiKey: KEY });
      t = await createTestApp({ engine: target });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      gateway = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1`;
      await t.s.options.update({
        SMTPServer: '127.0.0.1',
        SMTPPort: String(smtp.port),
        SMTPAccount: 'noreply@example.com',
        SMTPFrom: 'noreply@example.com',
        QuotaRemindThreshold: '1000',
        PreConsumedQuota: '0',
      });
      const root = await t.signIn('root', ROOT_PASSWORD);
      const price = await t.call({
        method: 'POST',
        url: '/api/prices/single',
        headers: { cookie: root },
        payload: { model: 'remind-chat', type: 'tokens', channel_type: 1, input: 1, output: 1 },
      });
      expect(price.statusCode, price.body).toBe(200);
      await createChannel(t, root, { name: 'remind', key: KEY, base_url: up.url, models: ['remind-chat'] });
      userId = await registerUser(t, 'reminded');
      await t.s.repos.users.update(userId, { quota: 1_300, email: 'reminded@example.com' });
      key = (await createToken(t, await t.signIn('reminded', 'password-123'))).key;
      // Every call costs 100 + 100 = 200 quota at these prices.
      up.setScenario({ kind: 'ok', content: 'ok', promptTokens: 100, completionTokens: 100 });
    });

    afterAll(async () => {
      await t?.close();
      await up?.close();
      await smtp?.close();
    });

    const call = async () => {
      await new OpenAI({ apiKey: key, baseURL: gateway, maxRetries: 0 }).chat.completions.create({
        model: 'remind-chat',
        messages: [{ role: 'user', content: 'hi' }],
      });
      await settled(t);
      await t.s.relay.quotaReminder.flush();
    };
    const remindersTo = () => smtp.mails.filter((m) => m.to.includes('reminded@example.com')).length;

    it('mails once when the settled balance goes below the threshold, not on every call after', async () => {
      await call(); // 1 100: above
      expect(remindersTo()).toBe(0);
      await call(); // 900: crossed
      await call(); // 700: still below, no second mail
      expect(remindersTo()).toBe(1);
      expect(smtp.mails.at(-1)?.raw).toContain('balance is running low');
    });

    it('mails again after the balance went back above and crossed once more', async () => {
      await t.s.repos.users.update(userId, { quota: 1_300 });
      await call(); // 1 100: above again, the reminder is re-armed
      await call(); // 900: crossed again
      expect(remindersTo()).toBe(2);
    });

    it('sends one mail when two nodes see the same crossing', async () => {
      await t.s.repos.users.update(userId, { quota: 1_300 });
      await call();
      await t.s.repos.users.update(userId, { quota: 500 });
      const before = remindersTo();
      const nodes = [1, 2].map(
        () =>
          new QuotaReminder(
            t.s.database,
            new SmtpMailer(t.s.options),
            () => t.s.options.current,
            () => 1,
            () => {},
          ),
      );
      for (const node of nodes) node.settled(userId);
      await Promise.all(nodes.map((n) => n.flush()));
      expect(remindersTo()).toBe(before + 1);
    });
  });
}

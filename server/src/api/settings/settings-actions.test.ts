import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeMail, startSmtpSink } from '../../test/smtp-sink.js';
import { createTestApp, ROOT_PASSWORD, type TestApp } from '../../test/test-app.js';

describe('settings actions', () => {
  let t: TestApp;
  let root: string;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  const call = (opts: InjectOptions) => t.call({ ...opts, headers: { ...opts.headers, cookie: root } });
  const testMail = (payload?: Record<string, unknown>) =>
    call({ method: 'POST', url: '/api/option/smtp/test', ...(payload ? { payload } : {}) });

  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await createTestApp();
    root = await t.signIn('root', ROOT_PASSWORD);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('refuses a test mail it cannot send, saying why, and sends none', async () => {
    const noAddress = await testMail({});
    expect(noAddress.statusCode).toBe(400);
    expect(noAddress.json().message).toContain('Your account has no email address');
    const badAddress = await testMail({ to: 'not-an-email' });
    expect(badAddress.statusCode).toBe(400);
    expect(badAddress.json().errors[0]).toEqual({ path: 'to', message: 'Enter a valid email address' });
    const unconfigured = await testMail({ to: 'ops@example.com' });
    expect(unconfigured.statusCode).toBe(400);
    expect(unconfigured.json()).toMatchObject({ code: 'mail_not_configured' });
    expect(smtp.mails).toHaveLength(0);
  });

  it('mails the given address, or the caller’s own, through the saved SMTP settings', async () => {
    await t.s.options.update({
      SMTPServer: '127.0.0.1',
      SMTPPort: String(smtp.port),
      SMTPAccount: 'noreply@example.com',
      SMTPFrom: 'noreply@example.com',
      SystemName: 'Gateway Test',
    });
    const sent = await testMail({ to: 'ops@example.com' });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json()).toMatchObject({
      message: 'A test mail was sent to ops@example.com',
      data: { to: 'ops@example.com' },
    });
    expect(smtp.mails.at(-1)?.to).toEqual(['ops@example.com']);
    const text = decodeMail(smtp.mails.at(-1)!.raw);
    expect(text).toContain('Subject: Gateway Test: SMTP test');
    expect(text).toContain('The SMTP settings work');

    const rootUser = await t.s.repos.users.byUsername('root');
    await t.s.repos.users.update(rootUser!.id, { email: 'root@example.com' });
    const own = await testMail();
    expect(own.statusCode, own.body).toBe(200);
    expect(smtp.mails.at(-1)?.to).toEqual(['root@example.com']);
    expect(JSON.stringify(await t.s.repos.auditLogs.recent(3))).toContain('option.smtp_test');
  });

  it('reports a mail server that cannot be reached', async () => {
    const closed = await startSmtpSink();
    await closed.close();
    await t.s.options.update({ SMTPPort: String(closed.port) });
    const res = await testMail({ to: 'ops@example.com' });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({ code: 'mail_failed' });
    expect(res.json().message).toMatch(/^Sending the test mail failed: /);
    await t.s.options.update({ SMTPPort: String(smtp.port) });
  });

  it('clears a secret unless an enabled sign-in method needs it', async () => {
    await t.s.options.update({
      GitHubClientId: 'client-id',
      GitHubClientSecret: 'client-secret',
      GitHubOAuthEnabled: 'true',
    });
    const refused = await call({ method: 'DELETE', url: '/api/option/GitHubClientSecret' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'option_precondition' });
    expect(refused.json().message).toContain('GitHubOAuthEnabled: needs GitHubClientSecret to be set first');
    expect(t.s.options.get('GitHubClientSecret')).toBe('client-secret');

    await t.s.options.update({ GitHubOAuthEnabled: 'false' });
    const cleared = await call({ method: 'DELETE', url: '/api/option/GitHubClientSecret' });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json().data).toEqual({
      key: 'GitHubClientSecret',
      value: '',
      secret: true,
      set: false,
      section: 'system',
    });
    expect(t.s.options.get('GitHubClientSecret')).toBe('');
    const stored = await t.s.repos.options.all();
    expect(stored.find((o) => o.key === 'GitHubClientSecret')?.value).toBe('');
    const audit = JSON.stringify(await t.s.repos.auditLogs.recent(3));
    expect(audit).toContain('option.clear');
    expect(audit).not.toContain('client-secret');
  });

  it('only clears known secrets', async () => {
    const plain = await call({ method: 'DELETE', url: '/api/option/SystemName' });
    expect(plain.statusCode).toBe(400);
    expect(plain.json().message).toContain('SystemName is not a secret');
    expect(t.s.options.get('SystemName')).toBe('Gateway Test');
    const unknown = await call({ method: 'DELETE', url: '/api/option/NoSuchOption' });
    expect(unknown.statusCode).toBe(404);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeMail, startSmtpSink } from '../../test/smtp-sink.js';
import { createTestApp, registerUser, type TestApp } from '../../test/test-app.js';

describe('email verification and password reset over SMTP', () => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await createTestApp();
    await t.s.options.update({
      SMTPServer: '127.0.0.1',
      SMTPPort: String(smtp.port),
      SMTPAccount: 'noreply@example.com',
      SMTPFrom: 'noreply@example.com',
      ServerAddress: 'https://gw.example.com',
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('mails a code that registration with email verification requires, once', async () => {
    await t.s.options.update({ EmailVerificationEnabled: 'true' });
    const sent = await t.call({ method: 'GET', url: '/api/verification?email=Zoe@Example.com' });
    expect(sent.statusCode).toBe(200);
    const mail = smtp.mails.at(-1)!;
    expect(mail.to.map((a) => a.toLowerCase())).toEqual(['zoe@example.com']);
    const code = /\b(\d{6})\b/.exec(decodeMail(mail.raw))?.[1];
    expect(code).toBeDefined();
    const payload = { username: 'zoe', password: 'zoe-password', email: 'Zoe@Example.com' };
    const wrong = await t.call({
      method: 'POST',
      url: '/api/user/register',
      payload: { ...payload, verification_code: '000000' === code ? '111111' : '000000' },
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().code).toBe('invalid_verification_code');
    // A wrong guess used the code up: a new one must be requested.
    const sentAgain = await t.call({ method: 'GET', url: '/api/verification?email=Zoe@Example.com' });
    expect(sentAgain.statusCode).toBe(200);
    const code2 = /\b(\d{6})\b/.exec(decodeMail(smtp.mails.at(-1)!.raw))?.[1];
    const ok = await t.call({
      method: 'POST',
      url: '/api/user/register',
      payload: { ...payload, verification_code: code2 },
    });
    expect(ok.statusCode).toBe(200);
    const replay = await t.call({
      method: 'POST',
      url: '/api/user/register',
      payload: { ...payload, username: 'zoe2', email: 'zoe2@example.com', verification_code: code2 },
    });
    expect(replay.statusCode).toBe(400);
    await t.s.options.update({ EmailVerificationEnabled: 'false' });
  });

  it('applies the email domain whitelist', async () => {
    await t.s.options.update({ EmailDomainWhitelist: 'example.com', EmailDomainRestrictionEnabled: 'true' });
    const res = await t.call({ method: 'GET', url: '/api/verification?email=x@elsewhere.org' });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('email_domain_not_allowed');
    await t.s.options.update({ EmailDomainRestrictionEnabled: 'false' });
  });

  it('resets a password through the mailed link, once, and ends old sessions', async () => {
    await registerUser(t, 'yann', 'yann-password', { email: 'yann@example.com' });
    const oldSession = await t.signIn('yann', 'yann-password');
    const before = smtp.mails.length;
    expect(
      (await t.call({ method: 'GET', url: '/api/reset_password?email=yann@example.com' })).statusCode,
    ).toBe(200);
    expect(smtp.mails.length).toBe(before + 1);
    const link = /https:\/\/gw\.example\.com\/user\/reset\?email=([^&]+)&token=([\w-]+)/.exec(
      decodeMail(smtp.mails.at(-1)!.raw),
    );
    expect(link).not.toBeNull();
    const body = { email: decodeURIComponent(link![1]!), token: link![2]! };
    const res = await t.call({ method: 'POST', url: '/api/user/reset', payload: body });
    expect(res.statusCode).toBe(200);
    const newPassword = res.json().data as string;
    expect(newPassword.length).toBeGreaterThanOrEqual(12);
    await expect(t.signIn('yann', newPassword)).resolves.toMatch(/^sy_session=/);
    expect(
      (await t.call({ method: 'GET', url: '/api/user/self', headers: { cookie: oldSession } })).statusCode,
    ).toBe(401);
    const reused = await t.call({ method: 'POST', url: '/api/user/reset', payload: body });
    expect(reused.statusCode).toBe(400);
    expect(reused.json().code).toBe('invalid_reset_link');
  });

  it('does not reveal whether an address has an account', async () => {
    const before = smtp.mails.length;
    const res = await t.call({ method: 'GET', url: '/api/reset_password?email=ghost@example.com' });
    expect(res.statusCode).toBe(200);
    expect(smtp.mails.length).toBe(before);
  });
});

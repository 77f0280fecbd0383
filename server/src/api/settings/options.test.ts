import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineTargets } from '../../test/databases.js';
import { createTestApp, ROOT_PASSWORD, type TestApp } from '../../test/test-app.js';

describe('options API', () => {
  let t: TestApp;
  let root: string;
  beforeAll(async () => {
    t = await createTestApp();
    root = await t.signIn('root', ROOT_PASSWORD);
  });
  afterAll(async () => t?.close());

  const get = async () =>
    (await t.call({ method: 'GET', url: '/api/option/', headers: { cookie: root } })).json().data as {
      key: string;
      value: string;
      secret: boolean;
      set: boolean;
    }[];
  const put = (payload: Record<string, unknown>) =>
    t.call({ method: 'PUT', url: '/api/option/', headers: { cookie: root }, payload });

  it('lists every registered option with its default', async () => {
    const list = await get();
    const byKey = new Map(list.map((o) => [o.key, o]));
    expect(byKey.get('QuotaPerUnit')?.value).toBe('500000');
    expect(byKey.get('PasswordLoginEnabled')?.value).toBe('true');
    expect(byKey.get('RetryTimes')?.value).toBe('0');
    expect(byKey.size).toBeGreaterThan(60);
  });

  it('stores a value, reflects it in the site status and survives a reload from the database', async () => {
    expect((await put({ key: 'SystemName', value: 'Acme Gateway' })).statusCode).toBe(200);
    const status = await t.call({ method: 'GET', url: '/api/status' });
    expect(status.json().data.system_name).toBe('Acme Gateway');
    await t.s.options.reload();
    expect(t.s.options.get('SystemName')).toBe('Acme Gateway');
  });

  it('never returns a secret, only whether it is set', async () => {
    expect((await put({ key: 'SMTPToken', value: 'smtp-password-xyz' })).statusCode).toBe(200);
    const list = await get();
    const smtp = list.find((o) => o.key === 'SMTPToken');
    expect(smtp).toMatchObject({ secret: true, set: true, value: '' });
    expect(JSON.stringify(list)).not.toContain('smtp-password-xyz');
    const audit = await t.s.repos.auditLogs.recent(5);
    expect(JSON.stringify(audit)).not.toContain('smtp-password-xyz');
  });

  it('rejects invalid values with the reason and writes nothing', async () => {
    const bad = await put({ options: { QuotaPerUnit: '0', RetryTimes: '2' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('option_invalid');
    expect(bad.json().message).toContain('QuotaPerUnit');
    // The valid half of the batch was not saved either.
    expect(t.s.options.get('RetryTimes')).toBe(0);
    const json = await put({ key: 'ChatLinks', value: '[{"name": 1}' });
    expect(json.statusCode).toBe(400);
    const unknown = await put({ key: 'NoSuchOption', value: 'x' });
    expect(unknown.statusCode).toBe(400);
  });

  it('refuses the retired AudioTokenJson, saying what replaces it', async () => {
    for (const payload of [{ key: 'AudioTokenJson', value: '{}' }, { options: { AudioTokenJson: '{}' } }]) {
      const res = await put(payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toContain('input_audio_tokens');
    }
    expect((await get()).some((o) => o.key === 'AudioTokenJson')).toBe(false);
  });

  it('refuses to enable a sign-in method before it is configured', async () => {
    const res = await put({ key: 'GitHubOAuthEnabled', value: 'true' });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('option_precondition');
    expect(res.json().message).toContain('GitHubClientId');
    const ok = await put({
      options: { GitHubClientId: 'id', GitHubClientSecret: 'secret', GitHubOAuthEnabled: 'true' },
    });
    expect(ok.statusCode).toBe(200);
    // Clearing what a live toggle depends on is refused too.
    const clear = await put({ key: 'GitHubClientId', value: '' });
    expect(clear.statusCode).toBe(409);
    expect((await t.call({ method: 'GET', url: '/api/status' })).json().data.github_oauth).toBe(true);
  });

  it('records who changed what in the audit log', async () => {
    await put({ key: 'Notice', value: 'Maintenance at 22:00' });
    const [last] = await t.s.repos.auditLogs.recent(1);
    expect(last).toMatchObject({ action: 'option.update', actor_name: 'root', target_id: 'Notice' });
    expect((await t.call({ method: 'GET', url: '/api/notice' })).json().data).toBe('Maintenance at 22:00');
  });
});

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(
    `saving a whole settings section on ${target.engine}`,
    () => {
      let t: TestApp;
      let root: string;
      beforeAll(async () => {
        t = await createTestApp({ engine: target });
        root = await t.signIn('root', ROOT_PASSWORD);
      });
      afterAll(async () => t?.close());

      it('answers 200 and audits the keys, however many and however long their names', async () => {
        // Twenty keys whose names joined run past the audit log's 191-character target column.
        const keys = [
          'SystemName',
          'Logo',
          'Footer',
          'About',
          'HomePageContent',
          'Notice',
          'ServerAddress',
          'ChatLink',
          'ChatLinks',
          'TopUpLink',
          'QuotaPerUnit',
          'DisplayInCurrencyEnabled',
          'DisplayTokenStatEnabled',
          'ApproximateTokenEnabled',
          'LogConsumeEnabled',
          'RetryTimes',
          'RetryCooldownSeconds',
          'PreConsumedQuota',
          'QuotaForNewUser',
          'QuotaForInviter',
        ];
        const current = new Map(
          (
            (await t.call({ method: 'GET', url: '/api/option/', headers: { cookie: root } })).json().data as {
              key: string;
              value: string;
            }[]
          ).map((o) => [o.key, o.value]),
        );
        const known = keys.filter((k) => current.has(k));
        expect(known.join(',').length).toBeGreaterThan(191);
        const values = Object.fromEntries(
          known.map((k) => [k, k === 'Notice' ? 'Saved in one go' : current.get(k)!]),
        );
        const res = await t.call({
          method: 'PUT',
          url: '/api/option/',
          headers: { cookie: root },
          payload: { options: values },
        });
        expect(res.statusCode).toBe(200);
        const [last] = await t.s.repos.auditLogs.recent(1);
        expect(last).toMatchObject({ action: 'option.update', target_id: `${known.length} keys` });
        expect(Object.keys(JSON.parse(last!.detail).values)).toHaveLength(known.length);
        expect(JSON.parse(last!.detail).values.Notice).toBe('Saved in one go');
      });
    },
  );
}

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { SecretBox } from '../crypto/secret-box.js';
import { composeServices } from '../main.js';
import { engineTargets } from '../test/databases.js';
import { createChannel, createToken } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, type TestApp } from '../test/test-app.js';
import { RotationRefused } from './rotate-secret-key.js';
import { runRotation } from './rotate-secret-key-main.js';

// Issue #25 item 5: secret options sealed at rest like channel keys (and sealed at start when an
// older database holds them in the clear), never returned by the API; `rotate-secret-key` re-seals
// everything under a new key in one transaction and refuses to run a second time.

const NEW_KEY = 'n'.repeat(40);
const SMTP = 'smtp-password-at-rest';

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`secrets at rest on ${target.engine}`, () => {
    let t: TestApp;
    let root = '';
    const storedOption = async (key: string) =>
      (await t.s.repos.options.all()).find((r) => r.key === key)?.value ?? '';

    beforeAll(async () => {
      t = await createTestApp({ engine: target });
      root = await t.signIn('root', ROOT_PASSWORD);
    });
    afterAll(async () => t?.close());

    it('stores a secret option sealed and never returns it', async () => {
      const put = await t.call({
        method: 'PUT',
        url: '/api/option/',
        headers: { cookie: root },
        payload: { key: 'SMTPToken', value: SMTP },
      });
      expect(put.statusCode).toBe(200);
      const stored = await storedOption('SMTPToken');
      expect(stored).toMatch(/^v1:/);
      expect(stored).not.toContain(SMTP);
      expect(t.s.secretBox.decrypt(stored)).toBe(SMTP);
      expect(t.s.options.current.SMTPToken).toBe(SMTP);
      const list = await t.call({ method: 'GET', url: '/api/option/', headers: { cookie: root } });
      expect(list.body).not.toContain(SMTP);
      expect(list.json().data.find((o: { key: string }) => o.key === 'SMTPToken')).toMatchObject({
        value: '',
        set: true,
      });
    });

    it('seals a secret option an older database holds in the clear, at start', async () => {
      await t.s.repos.options.save({ GitHubClientSecret: 'plain-github-secret' }, 1);
      const { services } = await composeServices(t.config);
      try {
        expect(services.options.current.GitHubClientSecret).toBe('plain-github-secret');
        const stored = await storedOption('GitHubClientSecret');
        expect(stored).toMatch(/^v1:/);
        expect(services.secretBox.decrypt(stored)).toBe('plain-github-secret');
      } finally {
        await services.close();
      }
    });

    it('re-seals every sealed value under a new key, once', async () => {
      await createChannel(t, root, {
        name: 'rot',
        key: 'sk-upstream-rotation',
        base_url: 'https://up.example',
        models: ['m'],
      });
      const token = await createToken(t, root);
      const codes = await t.call({
        method: 'POST',
        url: '/api/redemption/',
        headers: { cookie: root },
        payload: { name: 'rot', quota: 1000, count: 1 },
      });
      expect(codes.statusCode, codes.body).toBe(200);
      const code = (codes.json().data as string[])[0]!;

      const env = { DATA_DIR: t.config.dataDir, DATABASE_URL: t.config.databaseUrl, NEW_SECRET_KEY: NEW_KEY };
      const lines: string[] = [];
      await runRotation(env, (l) => lines.push(l));
      expect(lines[0]).toMatch(
        /1 channel keys, 1 API keys, 1 redemption codes, 0 payment configurations, 2 secret options/,
      );
      const file = path.join(t.config.dataDir, 'secrets.json');
      expect(JSON.parse(readFileSync(file, 'utf8')).secretKey).toBe(NEW_KEY);

      // Every sealed value opens with the new key only.
      const next = new SecretBox(NEW_KEY);
      const channel = await t.s.database.db
        .selectFrom('channels')
        .select('key_sealed')
        .executeTakeFirstOrThrow();
      expect(next.decrypt(channel.key_sealed)).toBe('sk-upstream-rotation');
      expect(() => new SecretBox(t.s.secrets.secretKey).decrypt(channel.key_sealed)).toThrow();
      expect(next.decrypt(await storedOption('SMTPToken'))).toBe(SMTP);

      // A node started with the new key finds the API key, the redemption code and the options.
      const { services } = await composeServices(t.config);
      const app = await buildApp(services);
      try {
        expect(services.options.current.SMTPToken).toBe(SMTP);
        const models = await app.inject({
          method: 'GET',
          url: '/v1/models',
          headers: { authorization: `Bearer ${token.key}` },
        });
        expect(models.statusCode, models.body).toBe(200);
        const login = await app.inject({
          method: 'POST',
          url: '/api/user/login',
          payload: { username: 'root', password: ROOT_PASSWORD },
        });
        const cookie = `sy_session=${login.cookies.find((c) => c.name === 'sy_session')!.value}`;
        const redeem = await app.inject({
          method: 'POST',
          url: '/api/user/topup',
          headers: { cookie },
          payload: { key: code },
        });
        expect(redeem.statusCode, redeem.body).toBe(200);
        expect(redeem.json().success).toBe(true);
      } finally {
        await app.close();
        await services.close();
      }

      // A wrong current key changes nothing and says which values it cannot open.
      const wrong = runRotation(
        { ...env, NEW_SECRET_KEY: 'z'.repeat(40), SECRET_KEY: 'q'.repeat(40) },
        () => {},
      );
      await expect(wrong).rejects.toThrow(RotationRefused);
      await expect(
        runRotation({ ...env, NEW_SECRET_KEY: 'z'.repeat(40), SECRET_KEY: 'q'.repeat(40) }, () => {}),
      ).rejects.toThrow(/do not open with the current SECRET_KEY \(channels \d+.*Nothing changed/);
      expect(next.decrypt(await storedOption('SMTPToken'))).toBe(SMTP);
    });

    it('refuses the rotation already run, naming it', async () => {
      // The old key again, the new key again: the values open with the new key only.
      const old = t.s.secrets.secretKey;
      await expect(
        runRotation(
          {
            DATA_DIR: t.config.dataDir,
            DATABASE_URL: t.config.databaseUrl,
            SECRET_KEY: old,
            NEW_SECRET_KEY: NEW_KEY,
          },
          () => {},
        ),
      ).rejects.toThrow(/already opens with the new key: the rotation ran before/);
    });
  });
}

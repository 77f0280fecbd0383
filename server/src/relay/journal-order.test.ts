import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../test/fake-upstream.js';
import { createChannel, createToken, settled } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, type TestApp } from '../test/test-app.js';

// A delivered call's settlement is in the journal before the client has the reply's last byte, so a
// process killed at any moment after that loses no bill. The hard case is a reply without usage:
// its local count needs a tokenizer that loads on first use, and the settlement must not wait for it
// after the reply has ended. Each case uses a model family whose tokenizer nobody loaded yet.

/** The settlements journaled so far for `model`. */
function journaled(dataDir: string, model: string): number {
  const file = path.join(dataDir, 'settlements.journal');
  if (!existsSync(file)) return 0;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { log?: { model_name?: string } })
    .filter((entry) => entry.log?.model_name === model).length;
}

/** Posts `body`; on the reply's last byte, reads what the journal holds for `model` at that moment. */
function callAndReadJournal(gateway: string, key: string, body: object, dataDir: string, model: string) {
  return new Promise<{ status: number; text: string; journaledAtEnd: number }>((resolve, reject) => {
    const req = http.request(`${gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, text, journaledAtEnd: journaled(dataDir, model) }),
      );
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('a settlement is journaled before the reply ends', () => {
  let t: TestApp;
  let up: FakeUpstream;
  let gateway: string;
  let key: string;

  beforeAll(async () => {
    up = await startFakeUpstream();
    // No usage anywhere: the gateway counts the reply itself.
    up.setScenario({ kind: 'ok', content: 'one two three four five', usage: 'never' });
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    gateway = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const root = await t.signIn('root', ROOT_PASSWORD);
    await createChannel(t, root, {
      name: 'no-usage',
      key: 'sk-up',
      base_url: `${up.url}/v1`,
      models: 'gpt-4o,gpt-4',
    });
    key = (await createToken(t, root)).key;
  });
  afterAll(async () => {
    await t?.close();
    await up?.close();
  });

  it('for a whole reply counted locally', async () => {
    expect(t.s.relay.counter.ready('gpt-4o')).toBeUndefined();
    const r = await callAndReadJournal(
      gateway,
      key,
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'count me' }] },
      t.config.dataDir,
      'gpt-4o',
    );
    expect(r.status, r.text).toBe(200);
    expect(r.text).toContain('one two three four five');
    expect(r.journaledAtEnd).toBe(1);
    await settled(t);
    const log = await t.s.database.db
      .selectFrom('logs')
      .select(['completion_tokens', 'metadata'])
      .where('model_name', '=', 'gpt-4o')
      .executeTakeFirstOrThrow();
    expect(log.completion_tokens).toBeGreaterThan(0);
    expect(JSON.parse(log.metadata ?? '{}').estimated).toBe(true);
  });

  it('for a stream counted locally', async () => {
    expect(t.s.relay.counter.ready('gpt-4')).toBeUndefined();
    const r = await callAndReadJournal(
      gateway,
      key,
      { model: 'gpt-4', stream: true, messages: [{ role: 'user', content: 'count me' }] },
      t.config.dataDir,
      'gpt-4',
    );
    expect(r.status, r.text).toBe(200);
    expect(r.text).toContain('data: [DONE]');
    expect(r.journaledAtEnd).toBe(1);
  });
});

import { type APIRequestContext, expect, request as playwrightRequest } from '@playwright/test';
import { type FakeScenario, type FakeUpstream, startFakeUpstream } from '../../server/src/test/fake-upstream';
import { ROOT } from './support';

// What the user-screen specs need from an administrator: a channel to a fake OpenAI upstream that
// this test process owns (models of its own per spec file, so parallel files never route to each
// other's fake), and redemption codes to give a new user a balance.

export interface Upstream {
  fake: FakeUpstream;
  root: APIRequestContext;
  channelId: number;
  setScenario(scenario: FakeScenario): void;
  /** A fresh unused redemption code worth `quota`. */
  redemptionCode(quota: number): Promise<string>;
  close(): Promise<void>;
}

export async function startUpstream(baseURL: string, models: readonly string[]): Promise<Upstream> {
  const name = `e2e ${models[0]}`;
  const fake = await startFakeUpstream({ apiKey: 'sk-upstream-e2e' });
  const root = await playwrightRequest.newContext({ baseURL });
  const login = await root.post('/api/user/login', { data: ROOT });
  expect(login.status(), await login.text()).toBe(200);
  const created = await root.post('/api/channel', {
    data: {
      type: 1,
      name,
      key: 'sk-upstream-e2e',
      base_url: fake.url,
      models,
      group: ['default'],
    },
  });
  expect(created.status(), await created.text()).toBe(200);
  const list = await root.get('/api/channel', { params: { name, size: 100 } });
  const rows = (await list.json()).data.data as { id: number; base_url: string }[];
  const channelId = rows.find((r) => r.base_url === fake.url)?.id;
  if (!channelId) throw new Error('the channel just created is not listed');
  return {
    fake,
    root,
    channelId,
    setScenario: (scenario) => fake.setScenario(scenario),
    async redemptionCode(quota) {
      const res = await root.post('/api/redemption', { data: { name: 'e2e', quota, count: 1 } });
      expect(res.status(), await res.text()).toBe(200);
      return ((await res.json()).data as string[])[0] as string;
    },
    async close() {
      await root.delete(`/api/channel/${channelId}`);
      await root.dispose();
      await fake.close();
    },
  };
}

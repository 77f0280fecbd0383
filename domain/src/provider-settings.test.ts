import { describe, expect, it } from 'vitest';
import { type ChannelSettings, channelSettingProblems } from './provider-settings.js';

const base = (s: Partial<ChannelSettings>): ChannelSettings => ({
  type: 1,
  key: 'sk-x',
  other: '',
  base_url: '',
  plugin: {},
  ...s,
});
const SA = JSON.stringify({
  type: 'service_account',
  project_id: 'p',
  client_email: 'a@p.iam',
  private_key: '-----BEGIN PRIVATE KEY-----',
});

describe('channel setting checks', () => {
  it('accepts plain OpenAI-compatible channels', () => {
    expect(channelSettingProblems(base({}))).toEqual([]);
  });

  it('checks Bedrock keys line by line', () => {
    expect(
      channelSettingProblems(
        base({ type: 32, key: 'us-east-1|AK|SK\neu-west-1|AK|SK|TOKEN\nus-west-2|ABSK' }),
      ),
    ).toEqual([]);
    expect(channelSettingProblems(base({ type: 32, key: 'us-east-1|AK|SK\nAK|SK' }))).toEqual([
      { field: 'key', message: 'Line 2: Bedrock keys start with a region: us-east-1|...' },
    ]);
    expect(channelSettingProblems(base({ type: 32, key: 'us-east-1|AK|SK|T|extra' }))[0]?.message).toMatch(
      /Region\|AccessKeyID/,
    );
  });

  it('checks the Vertex service account and Region|ProjectID', () => {
    expect(channelSettingProblems(base({ type: 42, key: SA, other: 'us-east5' }))).toEqual([]);
    expect(channelSettingProblems(base({ type: 42, key: SA, other: '' }))).toEqual([
      { field: 'other', message: 'Give Region|ProjectID, e.g. us-east5|my-project' },
    ]);
    const noProject = JSON.stringify({ client_email: 'a', private_key: 'k' });
    expect(channelSettingProblems(base({ type: 42, key: noProject, other: 'global' }))[0]?.message).toMatch(
      /project_id/,
    );
    expect(channelSettingProblems(base({ type: 42, key: noProject, other: 'global|proj' }))).toEqual([]);
    expect(channelSettingProblems(base({ type: 42, key: 'AIza', other: 'global|p' }))[0]).toEqual({
      field: 'key',
      message: 'The Vertex AI key must be the whole service-account JSON',
    });
  });

  it('checks the Azure api-version and the Azure Speech region', () => {
    expect(channelSettingProblems(base({ type: 3, other: '2025-04-01-preview' }))).toEqual([]);
    expect(channelSettingProblems(base({ type: 3, other: 'latest' }))[0]?.field).toBe('other');
    expect(channelSettingProblems(base({ type: 24, other: 'eastus' }))).toEqual([]);
    expect(channelSettingProblems(base({ type: 24, other: '' }))[0]?.message).toMatch(/region/);
    expect(channelSettingProblems(base({ type: 24, other: '', base_url: 'https://x.example' }))).toEqual([]);
  });

  it('checks Zhipu, Qianfan v2 and Cloudflare key formats', () => {
    expect(channelSettingProblems(base({ type: 16, key: 'abc.def' }))).toEqual([]);
    expect(channelSettingProblems(base({ type: 16, key: 'abcdef' }))[0]?.message).toBe(
      'Zhipu keys are id.secret',
    );
    expect(channelSettingProblems(base({ type: 15, key: 'ak|sk' }))[0]?.message).toMatch(/v2 API key/);
    expect(channelSettingProblems(base({ type: 35, key: 'acc|tok' }))).toEqual([]);
    expect(channelSettingProblems(base({ type: 35, key: 'tok' }))[0]?.message).toMatch(
      /ACCOUNT_ID\|API_TOKEN/,
    );
  });

  it('checks plugin value kinds', () => {
    expect(
      channelSettingProblems(
        base({
          type: 16,
          key: 'a.b',
          plugin: { web_search: { enable: 'yes' }, retrieval: { knowledge_id: 5 } },
        }),
      ),
    ).toEqual([
      { field: 'plugin', message: 'retrieval.knowledge_id must be text' },
      { field: 'plugin', message: 'web_search.enable must be true or false' },
    ]);
    expect(
      channelSettingProblems(
        base({ type: 24, other: 'eastus', plugin: { voice: { alloy: 'en-US-AvaMultilingualNeural' } } }),
      ),
    ).toEqual([]);
    expect(channelSettingProblems(base({ type: 20, plugin: { other: { provider: 'x' } } }))[0]?.message).toBe(
      'other.provider must be a JSON object',
    );
  });

  it("checks any channel's connection settings: timeouts in seconds and a PEM CA", () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const upstream = { connect_timeout: 5, first_byte_timeout: 0.5, idle_timeout: 120, ca: pem };
    expect(channelSettingProblems(base({ plugin: { upstream } }))).toEqual([]);
    expect(channelSettingProblems(base({ type: 14, key: 'k', plugin: { upstream } }))).toEqual([]);
    const messages = (plugin: Record<string, unknown>) =>
      channelSettingProblems(base({ plugin })).map((p) => `${p.field}: ${p.message}`);
    expect(messages({ upstream: 5 })).toEqual([
      'plugin: upstream must be a JSON object of connection settings',
    ]);
    expect(messages({ upstream: { idle_timeout: 0, connect_timeout: '5' } })).toEqual([
      'plugin: upstream.connect_timeout must be a number of seconds above 0 and at most 86400',
      'plugin: upstream.idle_timeout must be a number of seconds above 0 and at most 86400',
    ]);
    expect(messages({ upstream: { ca: 'not a certificate' } })).toEqual([
      'plugin: upstream.ca must be a PEM certificate (-----BEGIN CERTIFICATE-----)',
    ]);
    expect(messages({ upstream: { headers_timeout: 5 } })).toEqual([
      'plugin: upstream.headers_timeout is not a connection setting (connect_timeout, first_byte_timeout, idle_timeout, ca)',
    ]);
  });
});

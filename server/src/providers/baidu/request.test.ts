import { describe, expect, it } from 'vitest';
import { ChannelConfigError } from '../upstream-request.js';
import { buildQianfanRequest } from './request.js';

const value = { model: 'ernie-4.5-turbo-128k', stream: true, messages: [{ role: 'user', content: 'hi' }] };
const body = { kind: 'json' as const, raw: Buffer.from(JSON.stringify(value)), value };

describe('Qianfan v2 request', () => {
  it('sends the v2 key as Bearer to the v2 root and asks for stream usage', () => {
    const r = buildQianfanRequest({
      channel: { type: 15, baseUrl: '', key: 'bce-v3/ALTAK-abc/def', other: '', headers: { appid: 'app-1' } },
      endpoint: 'chat/completions',
      upstreamModel: 'ernie-4.5-turbo-128k',
      body,
    });
    expect(r.url).toBe('https://qianfan.baidubce.com/v2/chat/completions');
    expect(r.headers.authorization).toBe('Bearer bce-v3/ALTAK-abc/def');
    expect(r.headers.appid).toBe('app-1');
    expect(JSON.parse(String(r.body)).stream_options).toEqual({ include_usage: true });
  });

  it('refuses a v1 key pair with a message that says what to do', () => {
    expect(() =>
      buildQianfanRequest({
        channel: { type: 15, baseUrl: '', key: 'ak|sk', other: '' },
        endpoint: 'chat/completions',
        upstreamModel: 'x',
        body,
      }),
    ).toThrow(ChannelConfigError);
    expect(() =>
      buildQianfanRequest({
        channel: { type: 15, baseUrl: '', key: 'ak|sk', other: '' },
        endpoint: 'chat/completions',
        upstreamModel: 'x',
        body,
      }),
    ).toThrow(/v2 API key/);
  });
});

import { describe, expect, it } from 'vitest';
import { mapChannelType } from './channel-types.js';

describe('mapChannelType', () => {
  it('one-hub: same numbers; an OpenAI-style host becomes the API root one-hub called', () => {
    expect(mapChannelType('one-hub', 1, 'https://relay.example.com/')).toEqual({
      ok: true,
      type: 1,
      baseUrl: 'https://relay.example.com/v1',
    });
    expect(mapChannelType('one-hub', 28, 'https://api.deepseek.com')).toMatchObject({
      type: 28,
      baseUrl: 'https://api.deepseek.com/v1',
    });
    // An empty base URL means the vendor's default on both sides.
    expect(mapChannelType('one-hub', 1, '')).toEqual({ ok: true, type: 1, baseUrl: '' });
    // Anthropic's and Gemini's base URLs have no version segment in either system.
    expect(mapChannelType('one-hub', 14, 'https://claude.example.com')).toMatchObject({
      type: 14,
      baseUrl: 'https://claude.example.com',
    });
    // Cloudflare's AI gateway takes paths without /v1 in one-hub too.
    expect(mapChannelType('one-hub', 1, 'https://gateway.ai.cloudflare.com/v1/acc/gw/openai')).toMatchObject({
      baseUrl: 'https://gateway.ai.cloudflare.com/v1/acc/gw/openai',
    });
    expect(mapChannelType('one-hub', 999, '')).toEqual({
      ok: false,
      reason: 'one-hub channel type 999 has no counterpart in Switchyard',
    });
  });

  it('one-api: its own numbering', () => {
    expect(mapChannelType('one-api', 24, '')).toMatchObject({ type: 25 }); // Gemini
    expect(mapChannelType('one-api', 36, '')).toMatchObject({ type: 28 }); // DeepSeek
    expect(mapChannelType('one-api', 25, 'https://api.moonshot.cn')).toMatchObject({
      type: 29,
      baseUrl: 'https://api.moonshot.cn/v1',
    });
    // A reseller with its own built-in host becomes an OpenAI channel pointed at that host.
    expect(mapChannelType('one-api', 2, '')).toMatchObject({ type: 1, baseUrl: 'https://oa.api2d.net/v1' });
    expect(mapChannelType('one-api', 43, '')).toMatchObject({ ok: false });
  });

  it('new-api: its own numbering', () => {
    expect(mapChannelType('new-api', 43, '')).toMatchObject({ type: 28 }); // DeepSeek
    expect(mapChannelType('new-api', 4, 'http://ollama:11434')).toMatchObject({
      type: 39,
      baseUrl: 'http://ollama:11434/v1',
    });
    expect(mapChannelType('new-api', 37, '')).toMatchObject({ ok: false }); // Dify
  });

  it('flags a custom base URL of a type whose path differs', () => {
    const m = mapChannelType('one-hub', 15, 'https://aip.example.com');
    expect(m).toMatchObject({ ok: true, type: 15, baseUrl: 'https://aip.example.com' });
    expect(m.ok && m.note).toContain('kept as it was');
  });
});

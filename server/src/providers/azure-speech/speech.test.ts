import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAzureSpeech, startFakeAzureSpeech } from '../../test/fake-azure-speech.js';
import { parseAzureError } from '../azure/errors.js';
import { TranslationError } from '../translate/translation-error.js';
import { ChannelConfigError } from '../upstream-request.js';
import {
  buildAzureSpeechRequest,
  buildSsml,
  DEFAULT_AZURE_VOICES,
  resolveAzureVoice,
  voiceMapFromPlugin,
} from './speech.js';

let fake: FakeAzureSpeech;
beforeAll(async () => {
  fake = await startFakeAzureSpeech({ key: 'speech-key' });
});
afterAll(() => fake.close());

const channel = (plugin: unknown = {}, key = 'speech-key') => ({
  type: 24,
  baseUrl: fake.url,
  key,
  other: 'westeurope',
  plugin,
});

describe('Azure Speech voices and SSML', () => {
  it('maps the six OpenAI voices through the plugin, with defaults, and passes Azure names', () => {
    const map = voiceMapFromPlugin({ voice: { alloy: 'zh-CN-XiaoxiaoNeural', echo: '  ', nova: 7 } });
    expect(map).toEqual({ alloy: 'zh-CN-XiaoxiaoNeural' });
    expect(resolveAzureVoice('alloy', map)).toBe('zh-CN-XiaoxiaoNeural');
    expect(resolveAzureVoice('Echo', map)).toBe(DEFAULT_AZURE_VOICES.echo);
    expect(Object.keys(DEFAULT_AZURE_VOICES)).toEqual(['alloy', 'echo', 'fable', 'onyx', 'nova', 'shimmer']);
    expect(resolveAzureVoice('de-DE-KatjaNeural', map)).toBe('de-DE-KatjaNeural');
    expect(() => resolveAzureVoice('robot', map)).toThrow(TranslationError);
  });

  it('escapes the text, takes the language from the voice and turns speed into a rate', () => {
    expect(buildSsml('a < b & "c"', 'fr-FR-DeniseNeural', 1.5)).toBe(
      '<speak version="1.0" xmlns="http://www.w3.org/2001/10/synthesis" xml:lang="fr-FR"><voice name="fr-FR-DeniseNeural"><prosody rate="50%">a &lt; b &amp; &quot;c&quot;</prosody></voice></speak>',
    );
    expect(buildSsml('x', 'en-US-JennyNeural', 1)).not.toContain('prosody');
    expect(buildSsml('a\u0007b\tc', 'en-US-JennyNeural', undefined)).toContain('>ab\tc<');
    expect(buildSsml('x', 'en-US-JennyNeural', 0.5)).toContain('rate="-50%"');
  });
});

describe('Azure Speech request', () => {
  it('uses the regional endpoint by default', () => {
    const r = buildAzureSpeechRequest({
      channel: { ...channel(), baseUrl: '' },
      body: { input: 'hi', voice: 'nova' },
    });
    expect(r.request.url).toBe('https://westeurope.tts.speech.microsoft.com/cognitiveservices/v1');
    expect(() =>
      buildAzureSpeechRequest({ channel: { ...channel(), baseUrl: '', other: '' }, body: { input: 'hi' } }),
    ).toThrow(ChannelConfigError);
  });

  it('refuses formats, speeds and inputs Azure or OpenAI would not take', () => {
    expect(() =>
      buildAzureSpeechRequest({ channel: channel(), body: { input: 'x', response_format: 'flac' } }),
    ).toThrow(/not available on Azure Speech/);
    expect(() => buildAzureSpeechRequest({ channel: channel(), body: { input: 'x', speed: 5 } })).toThrow(
      /speed/,
    );
    expect(() => buildAzureSpeechRequest({ channel: channel(), body: { input: 'x'.repeat(4097) } })).toThrow(
      /4096/,
    );
    expect(() => buildAzureSpeechRequest({ channel: channel(), body: { voice: 'alloy' } })).toThrow(
      /input is required/,
    );
  });

  it('synthesises against the fake: mapped voice, format, audio bytes, usage by characters', async () => {
    const r = buildAzureSpeechRequest({
      channel: channel({ voice: { onyx: 'en-GB-ThomasNeural' } }),
      body: { model: 'tts-1', input: 'Grüße, world!', voice: 'onyx', response_format: 'opus' },
    });
    expect(r.usage.inputTokens).toBe(13);
    expect(r.contentType).toBe('audio/ogg');
    const res = await request(r.request.url, {
      method: 'POST',
      headers: r.request.headers,
      body: r.request.body as Buffer,
    });
    const audio = Buffer.from(await res.body.arrayBuffer());
    expect(res.statusCode).toBe(200);
    expect(audio.subarray(0, 4).toString()).toBe('OggS');
    expect(fake.requests.at(-1)).toMatchObject({
      voice: 'en-GB-ThomasNeural',
      lang: 'en-GB',
      text: 'Grüße, world!',
    });
  });

  it('reads Azure Speech failures: 401 JSON, 429 empty', async () => {
    const bad = buildAzureSpeechRequest({ channel: channel({}, 'wrong'), body: { input: 'x' } });
    const denied = await request(bad.request.url, {
      method: 'POST',
      headers: bad.request.headers,
      body: bad.request.body as Buffer,
    });
    expect(parseAzureError(denied.statusCode, Buffer.from(await denied.body.arrayBuffer()))).toMatchObject({
      status: 401,
      message: 'Access denied due to invalid subscription key or wrong API endpoint.',
    });
    fake.throttleNext();
    const ok = buildAzureSpeechRequest({ channel: channel(), body: { input: 'x' } });
    const limited = await request(ok.request.url, {
      method: 'POST',
      headers: ok.request.headers,
      body: ok.request.body as Buffer,
    });
    expect(parseAzureError(limited.statusCode, Buffer.from(await limited.body.arrayBuffer()))).toMatchObject({
      status: 429,
      message: 'upstream returned HTTP 429 Too Many Requests',
    });
  });
});

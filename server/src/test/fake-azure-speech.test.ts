import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAzureSpeech, startFakeAzureSpeech } from './fake-azure-speech.js';

let fake: FakeAzureSpeech;
beforeAll(async () => {
  fake = await startFakeAzureSpeech({ key: 'k' });
});
afterAll(() => fake.close());

const post = (headers: Record<string, string>, body: string) =>
  request(`${fake.url}/cognitiveservices/v1`, {
    method: 'POST',
    headers: { 'ocp-apim-subscription-key': 'k', ...headers },
    body,
  });

describe('fake Azure Speech', () => {
  it('answers 400 with an empty body for an unknown output format or a body that is not SSML', async () => {
    const ssml = '<speak version="1.0" xml:lang="en-US"><voice name="en-US-JennyNeural">hi</voice></speak>';
    const badFormat = await post(
      { 'content-type': 'application/ssml+xml', 'x-microsoft-outputformat': 'flac' },
      ssml,
    );
    expect(badFormat.statusCode).toBe(400);
    expect(await badFormat.body.text()).toBe('');
    const notSsml = await post(
      { 'content-type': 'text/plain', 'x-microsoft-outputformat': 'riff-24khz-16bit-mono-pcm' },
      'hi',
    );
    expect(notSsml.statusCode).toBe(400);
    await notSsml.body.dump();
    const wav = await post(
      { 'content-type': 'application/ssml+xml', 'x-microsoft-outputformat': 'riff-24khz-16bit-mono-pcm' },
      ssml,
    );
    expect((await wav.body.text()).startsWith('RIFF')).toBe(true);
  });
});

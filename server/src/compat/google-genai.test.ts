import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  MODELS,
  OPENAI_KEY,
  type ProtocolRig,
  resetRig,
  startProtocolRig,
} from '../test/protocol-fixtures.js';
import { createChannel, settled } from '../test/relay-fixtures.js';

// Issue 31 items 5 and 6 with @google/genai: the gateway's root works as a base URL (apiVersion v1
// and v1beta) as well as /gemini; countTokens is the Gemini channel's own count; embedContent and
// batchEmbedContents reach a Gemini channel natively and an OpenAI embedding channel translated,
// and both are billed.

const EMBED_MODEL = 'embed-proto';

describe('compat: @google/genai at the gateway root and at /gemini', () => {
  let rig: ProtocolRig;

  beforeAll(async () => {
    rig = await startProtocolRig();
    const res = await rig.t.call({
      method: 'POST',
      url: '/api/prices/single',
      headers: { cookie: rig.rootCookie },
      payload: { model: EMBED_MODEL, type: 'tokens', channel_type: 1, input: 1, output: 0 },
    });
    expect(res.statusCode, res.body).toBe(200);
    await createChannel(rig.t, rig.rootCookie, {
      type: 1,
      name: 'openai embeddings',
      key: OPENAI_KEY,
      base_url: rig.openai.url,
      models: [EMBED_MODEL],
    });
  });
  afterAll(async () => rig?.close());
  beforeEach(async () => resetRig(rig));

  const clients = () => [
    new GoogleGenAI({ apiKey: rig.userKey, httpOptions: { baseUrl: rig.root, apiVersion: 'v1' } }),
    new GoogleGenAI({ apiKey: rig.userKey, httpOptions: { baseUrl: rig.root } }),
    new GoogleGenAI({ apiKey: rig.userKey, httpOptions: { baseUrl: `${rig.root}/gemini` } }),
  ];

  it('generates, streams and counts through every base URL', async () => {
    for (const ai of clients()) {
      const res = await ai.models.generateContent({ model: MODELS.gemini, contents: 'Say hello' });
      expect(res.text).toBeTruthy();
      let streamed = '';
      for await (const chunk of await ai.models.generateContentStream({
        model: MODELS.gemini,
        contents: 'Say hello',
      })) {
        streamed += chunk.text ?? '';
      }
      expect(streamed).toBe(res.text);
      const counted = await ai.models.countTokens({ model: MODELS.gemini, contents: 'How long is this?' });
      // The channel's own count (the fake's quarter of the contents' JSON), not a local estimate.
      const sent = rig.gemini.requests.at(-1)!;
      expect(sent.path).toMatch(/:countTokens$/);
      expect(counted.totalTokens).toBe(Math.ceil(JSON.stringify(sent.json?.contents).length / 4));
    }
    expect(rig.gemini.requests).toHaveLength(9);
  });

  it('embeds on the Gemini channel natively, billed on the counted texts', async () => {
    await settled(rig.t);
    const before = await rig.quota();
    const ai = clients()[0]!;
    const res = await ai.models.embedContent({
      model: MODELS.gemini,
      contents: ['first text', 'second text'],
      config: { outputDimensionality: 4 },
    });
    expect(res.embeddings).toHaveLength(2);
    expect(res.embeddings?.[0]?.values).toHaveLength(4);
    const sent = rig.gemini.requests.at(-1)!;
    expect(sent.path).toBe(`/v1beta/models/${MODELS.gemini}:batchEmbedContents`);
    await settled(rig.t);
    expect(await rig.quota()).toBeLessThan(before);
    const log = await rig.lastLog();
    expect(log).toMatchObject({ model_name: MODELS.gemini, completion_tokens: 0 });
    expect(log!.prompt_tokens).toBeGreaterThan(0);

    const single = await fetch(`${rig.root}/v1/models/${MODELS.gemini}:embedContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': rig.userKey },
      body: JSON.stringify({ content: { parts: [{ text: 'one' }] } }),
    });
    expect(single.status).toBe(200);
    expect(((await single.json()) as { embedding: { values: number[] } }).embedding.values).toHaveLength(8);
  });

  it('embeds on an OpenAI embedding channel by translation, billed on its usage', async () => {
    await settled(rig.t);
    const before = await rig.quota();
    const ai = clients()[0]!;
    const res = await ai.models.embedContent({ model: EMBED_MODEL, contents: ['alpha', 'beta', 'gamma'] });
    expect(res.embeddings).toHaveLength(3);
    expect(res.embeddings?.[0]?.values?.length).toBeGreaterThan(0);
    const sent = rig.openai.requests.at(-1)!;
    expect(sent.path).toBe('/v1/embeddings');
    expect(sent.json).toMatchObject({ model: EMBED_MODEL, input: ['alpha', 'beta', 'gamma'] });
    await settled(rig.t);
    const log = await rig.lastLog();
    expect(log).toMatchObject({ model_name: EMBED_MODEL });
    expect(await rig.quota()).toBe(before - log!.quota);
    expect(log!.quota).toBeGreaterThan(0);
  });
});

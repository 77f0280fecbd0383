import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeGemini, startFakeGemini } from '../test/fake-gemini.js';
import { startHttpProxy, type TestProxy } from '../test/proxy-servers.js';
import { createChannel, createToken } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, type TestApp } from '../test/test-app.js';
import { AddressPolicy } from './address-policy.js';
import { ImageFetchError, ImageFetcher, inlineImageUrls } from './image-fetch.js';
import { OutboundAgent } from './outbound-agent.js';

// A valid 1x1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);
const NO_PROXY = { proxy: '', workerUrl: '', workerKey: '' };

describe('fetching image URLs', () => {
  let images: http.Server;
  let origin = '';
  const served: string[] = [];
  let worker: http.Server;
  let workerUrl = '';
  const workerBodies: unknown[] = [];
  let proxy: TestProxy;
  const agent = new OutboundAgent(new AddressPolicy(['127.0.0.0/8']));
  const fetcher = new ImageFetcher(agent, { maxBytes: 1024 * 1024, timeoutMs: 2000 });

  beforeAll(async () => {
    images = http.createServer((req, res) => {
      served.push(String(req.url));
      if (req.url === '/cat.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      else if (req.url === '/untyped')
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(PNG);
      else if (req.url === '/page') res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
      else if (req.url === '/huge') {
        // No content-length: the cap is enforced while reading.
        res.writeHead(200, { 'content-type': 'image/png' });
        const chunk = Buffer.alloc(64 * 1024, 1);
        let sent = 0;
        const pump = () => {
          while (sent < 64) {
            sent++;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('error', () => {});
        pump();
      } else if (req.url === '/slow') {
        /* never answers */
      } else res.writeHead(404).end();
    });
    await new Promise<void>((r) => images.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
    worker = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { api_key: string; url: string };
        workerBodies.push(body);
        res.setHeader('content-type', 'application/json');
        if (body.api_key !== 'worker-secret') {
          res.writeHead(401).end(JSON.stringify({ status: false, message: 'bad key' }));
          return;
        }
        res.end(JSON.stringify({ status: true, data: PNG.toString('base64'), mimeType: 'image/png' }));
      });
    });
    await new Promise<void>((r) => worker.listen(0, '127.0.0.1', r));
    workerUrl = `http://127.0.0.1:${(worker.address() as AddressInfo).port}/fetch`;
    proxy = await startHttpProxy();
  });
  afterAll(async () => {
    images.closeAllConnections();
    await agent.close();
    await proxy.close();
    await new Promise((r) => images.close(r));
    await new Promise((r) => worker.close(r));
  });

  it('fetches an image, taking its type from the header or from its bytes', async () => {
    expect(await fetcher.fetch(`${origin}/cat.png`, NO_PROXY)).toEqual({
      mediaType: 'image/png',
      data: PNG.toString('base64'),
    });
    expect((await fetcher.fetch(`${origin}/untyped`, NO_PROXY)).mediaType).toBe('image/png');
  });

  it('refuses what is not an image, too large, missing, slow, or at a refused address', async () => {
    await expect(fetcher.fetch(`${origin}/page`, NO_PROXY)).rejects.toThrow('it is not an image (text/html)');
    await expect(fetcher.fetch(`${origin}/huge`, NO_PROXY)).rejects.toThrow(
      'it is larger than 1048576 bytes',
    );
    await expect(fetcher.fetch(`${origin}/missing`, NO_PROXY)).rejects.toThrow('it answered 404');
    await expect(fetcher.fetch(`${origin}/slow`, NO_PROXY)).rejects.toThrow('no answer within 2 s');
    await expect(fetcher.fetch('http://169.254.169.254/latest/meta-data/', NO_PROXY)).rejects.toThrow(
      "its address is refused by the gateway's outbound policy",
    );
    const strict = new ImageFetcher(new OutboundAgent(new AddressPolicy()));
    await expect(strict.fetch(`${origin}/cat.png`, NO_PROXY)).rejects.toBeInstanceOf(ImageFetchError);
    await expect(fetcher.fetch('file:///etc/passwd', NO_PROXY)).rejects.toThrow('it is not an http(s) URL');
  });

  it('goes through ChatImageRequestProxy when it is set', async () => {
    await fetcher.fetch(`${origin}/cat.png`, { ...NO_PROXY, proxy: proxy.url });
    expect(proxy.seen).toContain(`GET ${origin}/cat.png`);
  });

  it("asks the Cloudflare worker in one-hub's protocol when CFWorkerImageUrl is set", async () => {
    const got = await fetcher.fetch('https://images.example/cat.png', {
      proxy: '',
      workerUrl,
      workerKey: 'worker-secret',
    });
    expect(got).toEqual({ mediaType: 'image/png', data: PNG.toString('base64') });
    expect(workerBodies.at(-1)).toEqual({
      action: 'base64',
      api_key: 'worker-secret',
      url: 'https://images.example/cat.png',
    });
    await expect(
      fetcher.fetch('https://images.example/cat.png', { proxy: '', workerUrl, workerKey: 'wrong' }),
    ).rejects.toThrow('the image worker refused: bad key');
  });

  it('replaces http(s) image URLs of a chat body with data URLs, leaving the rest', async () => {
    const body = {
      model: 'm',
      messages: [
        { role: 'system', content: 'be brief' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is it?' },
            { type: 'image_url', image_url: { url: `${origin}/cat.png`, detail: 'low' } },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
      ],
    };
    const out = await inlineImageUrls(body, (url) => fetcher.fetch(url, NO_PROXY));
    const parts = (out.messages as { content: unknown }[])[1]?.content as unknown[];
    expect(parts[1]).toEqual({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${PNG.toString('base64')}`, detail: 'low' },
    });
    expect(parts[2]).toEqual(body.messages[1]?.content[2]);
    // The client's body is not changed.
    expect(JSON.stringify(body)).toContain(`"url":"${origin}/cat.png"`);
    const plain = { messages: [{ role: 'user', content: 'hi' }] };
    expect(await inlineImageUrls(plain, () => Promise.reject(new Error('not called')))).toBe(plain);
  });

  describe('through the relay to a Gemini channel', () => {
    let t: TestApp;
    let gemini: FakeGemini;
    let openai: OpenAI;

    beforeAll(async () => {
      gemini = await startFakeGemini({ apiKey: 'gemini-key' });
      t = await createTestApp();
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const root = await t.signIn('root', ROOT_PASSWORD);
      await t.call({
        method: 'POST',
        url: '/api/prices/single',
        headers: { cookie: root },
        payload: { model: 'gemini-2.5-flash', type: 'tokens', channel_type: 25, input: 1, output: 1 },
      });
      await createChannel(t, root, {
        type: 25,
        name: 'gemini',
        key: 'gemini-key',
        base_url: gemini.url,
        models: ['gemini-2.5-flash'],
      });
      await t.s.relay.tables.reload();
      const token = await createToken(t, root);
      const port = (t.app.server.address() as AddressInfo).port;
      openai = new OpenAI({ apiKey: token.key, baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
    });
    afterAll(async () => {
      await t?.close();
      await gemini?.close();
    });
    beforeEach(() => gemini.reset());

    const ask = (url: string) =>
      openai.chat.completions.create({
        model: 'gemini-2.5-flash',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'describe' },
              { type: 'image_url', image_url: { url } },
            ],
          },
        ],
      });

    it('sends the fetched bytes inline, through the image proxy the options name', async () => {
      await t.s.options.update({ ChatImageRequestProxy: proxy.url });
      proxy.seen.length = 0;
      await ask(`${origin}/cat.png`);
      const sent = gemini.requests.at(-1)?.json as { contents: { parts: unknown[] }[] };
      expect(sent.contents[0]?.parts).toContainEqual({
        inlineData: { mimeType: 'image/png', data: PNG.toString('base64') },
      });
      expect(proxy.seen).toEqual([`GET ${origin}/cat.png`]);
      await t.s.options.update({ ChatImageRequestProxy: '' });
    });

    it('refuses the request with a 400 naming the image when it cannot be fetched, without calling the upstream', async () => {
      await expect(ask('http://169.254.169.254/latest/meta-data/')).rejects.toMatchObject({
        status: 400,
        message: expect.stringContaining("its address is refused by the gateway's outbound policy"),
      });
      expect(gemini.requests).toHaveLength(0);
    });
  });
});

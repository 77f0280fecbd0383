import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpProxy, startSocks5Proxy, type TestProxy } from '../test/proxy-servers.js';
import { AddressPolicy } from './address-policy.js';
import { OutboundAgent } from './outbound-agent.js';

const cert = readFileSync(new URL('../relay/testdata/localhost-cert.pem', import.meta.url), 'utf8');
const key = readFileSync(new URL('../relay/testdata/localhost-key.pem', import.meta.url), 'utf8');

describe('OutboundAgent through real proxies', () => {
  let plain: http.Server;
  let secure: https.Server;
  let plainPort = 0;
  let securePort = 0;
  const upstreamSaw: string[] = [];
  let httpProxy: TestProxy;
  let socks: TestProxy;
  let socksAuth: TestProxy;
  const agent = new OutboundAgent(new AddressPolicy(['127.0.0.0/8', '::1']));

  beforeAll(async () => {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
      upstreamSaw.push(`${req.method} ${req.headers.host} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`hello ${req.url}`);
    };
    plain = http.createServer(handler);
    secure = https.createServer({ cert, key }, handler);
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => secure.listen(0, '127.0.0.1', r));
    plainPort = (plain.address() as AddressInfo).port;
    securePort = (secure.address() as AddressInfo).port;
    httpProxy = await startHttpProxy();
    socks = await startSocks5Proxy();
    socksAuth = await startSocks5Proxy({ user: 'alice', password: 'p@ss' });
  });
  afterAll(async () => {
    await agent.close();
    await Promise.all([httpProxy.close(), socks.close(), socksAuth.close()]);
    await new Promise((r) => plain.close(r));
    await new Promise((r) => secure.close(r));
  });

  it('sends an http upstream call to an HTTP proxy in absolute form', async () => {
    const res = await agent
      .for({ proxy: httpProxy.url })
      .request({ origin: `http://127.0.0.1:${plainPort}`, path: '/v1/models', method: 'GET' });
    expect(await res.body.text()).toBe('hello /v1/models');
    expect(httpProxy.seen).toContain(`GET http://127.0.0.1:${plainPort}/v1/models`);
    expect(upstreamSaw).toContain(`GET 127.0.0.1:${plainPort} /v1/models`);
  });

  it('tunnels an https upstream call through CONNECT, trusting the channel CA', async () => {
    const res = await agent
      .for({ proxy: httpProxy.url, ca: cert })
      .request({ origin: `https://localhost:${securePort}`, path: '/secure', method: 'GET' });
    expect(await res.body.text()).toBe('hello /secure');
    expect(httpProxy.seen).toContain(`CONNECT localhost:${securePort}`);
    expect(upstreamSaw).toContain(`GET localhost:${securePort} /secure`);
  });

  it('sends the proxy credentials of the URL', async () => {
    const withAuth = httpProxy.url.replace('http://', 'http://bob:s3cret@');
    const res = await agent
      .for({ proxy: withAuth })
      .request({ origin: `http://127.0.0.1:${plainPort}`, path: '/auth', method: 'GET' });
    await res.body.text();
    expect(httpProxy.auth).toContain(`Basic ${Buffer.from('bob:s3cret').toString('base64')}`);
  });

  it('goes through SOCKS5 with the upstream name resolved by the proxy, for http and https', async () => {
    const res = await agent
      .for({ proxy: socks.url })
      .request({ origin: `http://localhost:${plainPort}`, path: '/socks', method: 'GET' });
    expect(await res.body.text()).toBe('hello /socks');
    const tls = await agent
      .for({ proxy: socks.url, ca: cert })
      .request({ origin: `https://localhost:${securePort}`, path: '/socks-tls', method: 'GET' });
    expect(await tls.body.text()).toBe('hello /socks-tls');
    // The name, not an address: the gateway did not resolve it.
    expect(socks.seen).toEqual([`SOCKS localhost:${plainPort}`, `SOCKS localhost:${securePort}`]);
    expect(upstreamSaw).toContain(`GET localhost:${securePort} /socks-tls`);
  });

  it('authenticates to a SOCKS5 proxy with the URL credentials', async () => {
    const url = socksAuth.url.replace('socks5://', 'socks5://alice:p%40ss@');
    const res = await agent
      .for({ proxy: url })
      .request({ origin: `http://127.0.0.1:${plainPort}`, path: '/socks-auth', method: 'GET' });
    expect(await res.body.text()).toBe('hello /socks-auth');
    expect(socksAuth.auth).toEqual(['alice:p@ss']);
  });

  it("puts the proxy's own address under the outbound policy", async () => {
    const strict = new OutboundAgent(new AddressPolicy());
    try {
      const before = httpProxy.seen.length;
      await expect(
        strict.request({
          origin: 'http://93.184.216.34',
          path: '/',
          method: 'GET',
          proxy: httpProxy.url,
        } as never),
      ).rejects.toThrow('address 127.0.0.1 refused by the outbound policy: loopback address');
      await expect(
        strict.request({
          origin: 'http://93.184.216.34',
          path: '/',
          method: 'GET',
          proxy: socks.url.replace('127.0.0.1', 'localhost'),
        } as never),
      ).rejects.toThrow(/refused by the outbound policy: loopback address/);
      expect(httpProxy.seen.length).toBe(before);
    } finally {
      await strict.close();
    }
  });

  it('refuses a metadata address as the target even through a proxy', async () => {
    const before = httpProxy.seen.length;
    await expect(
      agent.request({
        origin: 'http://169.254.169.254',
        path: '/latest/meta-data/',
        method: 'GET',
        proxy: httpProxy.url,
      } as never),
    ).rejects.toThrow('address 169.254.169.254 refused by the outbound policy: cloud metadata address');
    expect(httpProxy.seen.length).toBe(before);
  });

  it('names an unusable proxy setting', async () => {
    await expect(
      agent.request({
        origin: 'http://127.0.0.1:1',
        path: '/',
        method: 'GET',
        proxy: 'ftp://x:y@h:21',
      } as never),
    ).rejects.toThrow(`The channel's proxy "ftp://x:***@h:21" uses ftp:; use http://, https:// or socks5://`);
    // The same through the route a model list or balance query takes.
    await expect(
      agent
        .for({ proxy: 'ftp://x:y@h:21' })
        .request({ origin: 'http://127.0.0.1:1', path: '/', method: 'GET' }),
    ).rejects.toThrow(`The channel's proxy "ftp://x:***@h:21" uses ftp:`);
  });
});

import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressPolicy, AllowedNetworkError, OutboundRefused } from './address-policy.js';
import { OutboundAgent } from './outbound-agent.js';

/** A resolver answering from a list, one answer per call (the last one repeated). */
function scriptedResolver(answers: string[][]) {
  let call = 0;
  const resolve = ((_host: string, _opts: unknown, cb: (e: Error | null, a: LookupAddress[]) => void) => {
    const list = answers[Math.min(call++, answers.length - 1)] ?? [];
    setImmediate(() =>
      cb(
        null,
        list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      ),
    );
  }) as unknown as ConstructorParameters<typeof AddressPolicy>[1];
  return { resolve, calls: () => call };
}

describe('AddressPolicy', () => {
  const strict = new AddressPolicy();

  it('always refuses metadata and link-local addresses, even when the configuration allows everything', () => {
    const open = new AddressPolicy(['0.0.0.0/0', '::/0']);
    for (const a of [
      '169.254.169.254',
      '169.254.1.7',
      'fe80::1',
      'fd00:ec2::254',
      '::ffff:169.254.169.254',
      '100.100.100.200',
    ]) {
      expect(open.refusal(a)?.message, a).toMatch(/refused by the outbound policy/);
      expect(strict.refusal(a), a).toBeInstanceOf(OutboundRefused);
    }
    expect(open.refusal('169.254.169.254')?.message).toBe(
      'address 169.254.169.254 refused by the outbound policy: cloud metadata address',
    );
    expect(open.refusalBeforeLookup('metadata.google.internal.')?.message).toMatch(
      /cloud metadata host name/,
    );
  });

  it('refuses private, loopback and unspecified addresses unless listed', () => {
    for (const a of [
      '127.0.0.1',
      '::1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      'fc00::5',
      '0.0.0.0',
      '::',
      '::ffff:127.0.0.1',
    ]) {
      expect(strict.refusal(a)?.message, a).toMatch(/not listed in OUTBOUND_ALLOWED_NETWORKS/);
    }
    const lan = new AddressPolicy(['192.168.1.0/24', '127.0.0.1', '::1']);
    expect(lan.refusal('192.168.1.20')).toBeNull();
    expect(lan.refusal('192.168.2.20')).toBeInstanceOf(OutboundRefused);
    expect(lan.refusal('127.0.0.1')).toBeNull();
    expect(lan.refusal('127.0.0.2')).toBeInstanceOf(OutboundRefused);
    expect(lan.refusal('::1')).toBeNull();
  });

  it('lets public addresses through', () => {
    for (const a of ['8.8.8.8', '104.18.0.1', '2606:4700::1']) expect(strict.refusal(a), a).toBeNull();
  });

  it('names a bad entry of the allowed list', () => {
    expect(() => AddressPolicy.parseList('10.0.0.0/8, nonsense')).toThrow(AllowedNetworkError);
    expect(() => AddressPolicy.parseList('10.0.0.0/8, nonsense')).toThrow(/"nonsense"/);
    expect(AddressPolicy.parseList(' 10.0.0.0/8, ::1 127.0.0.1 ')).toEqual([
      '10.0.0.0/8',
      '::1',
      '127.0.0.1',
    ]);
  });

  it('refuses a host name that resolves to a refused address, in both lookup forms', async () => {
    const { resolve } = scriptedResolver([['93.184.216.34', '169.254.169.254']]);
    const policy = new AddressPolicy([], resolve);
    const single = await new Promise<Error | null>((done) =>
      policy.lookup('evil.test', {}, (err) => done(err)),
    );
    expect(single?.message).toBe(
      'address 169.254.169.254 (evil.test) refused by the outbound policy: cloud metadata address',
    );
    const all = await new Promise<Error | null>((done) =>
      policy.lookup('evil.test', { all: true }, (err) => done(err)),
    );
    expect(all).toBeInstanceOf(OutboundRefused);
  });

  describe('on real connections', () => {
    let server: http.Server;
    let port = 0;
    let hits = 0;
    beforeAll(async () => {
      server = http.createServer((_req, res) => {
        hits++;
        // A new connection per call: each goes through the lookup again.
        res.writeHead(200, { connection: 'close', 'content-type': 'text/plain' }).end('ok');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      await new Promise((r) => server.close(r));
    });

    it('refuses localhost when loopback is not listed, and reaches it when it is', async () => {
      const refused = new OutboundAgent(new AddressPolicy());
      const allowed = new OutboundAgent(new AddressPolicy(['127.0.0.0/8', '::1']));
      try {
        const before = hits;
        await expect(
          refused.request({ origin: `http://localhost:${port}`, path: '/', method: 'GET' }),
        ).rejects.toThrow(
          /address (127\.0\.0\.1|::1) \(localhost\) refused by the outbound policy: loopback address/,
        );
        await expect(
          refused.request({ origin: `http://127.0.0.1:${port}`, path: '/', method: 'GET' }),
        ).rejects.toThrow(
          'address 127.0.0.1 refused by the outbound policy: loopback address, not listed in OUTBOUND_ALLOWED_NETWORKS',
        );
        expect(hits).toBe(before);
        const res = await allowed.request({ origin: `http://127.0.0.1:${port}`, path: '/', method: 'GET' });
        expect(await res.body.text()).toBe('ok');
      } finally {
        await refused.close();
        await allowed.close();
      }
    });

    it('judges every connection, so a name rebound to a refused address is refused on the next one', async () => {
      // First answer: the allowed test server; second: the metadata address.
      const { resolve, calls } = scriptedResolver([['127.0.0.1'], ['169.254.169.254']]);
      const agent = new OutboundAgent(new AddressPolicy(['127.0.0.1'], resolve));
      try {
        const first = await agent.request({ origin: `http://rebind.test:${port}`, path: '/', method: 'GET' });
        expect(await first.body.text()).toBe('ok');
        await expect(
          agent.request({ origin: `http://rebind.test:${port}`, path: '/', method: 'GET' }),
        ).rejects.toThrow(
          'address 169.254.169.254 (rebind.test) refused by the outbound policy: cloud metadata address',
        );
        expect(calls()).toBe(2);
      } finally {
        await agent.close();
      }
    });
  });
});

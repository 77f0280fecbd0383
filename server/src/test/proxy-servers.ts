import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

// Real proxy processes for the tests of channel proxies: an HTTP proxy (CONNECT tunnels and
// absolute-form requests) and a SOCKS5 one (no authentication or username/password, CONNECT by
// IPv4 or domain name). Each records what it was asked to reach.

export interface TestProxy {
  /** `http://127.0.0.1:<port>` or `socks5://127.0.0.1:<port>`. */
  url: string;
  /** What the proxy was asked for: `CONNECT host:port`, `GET http://...`, `SOCKS host:port`. */
  seen: string[];
  /** The authentication it received (Proxy-Authorization header, or `user:password` for SOCKS5). */
  auth: string[];
  close(): Promise<void>;
}

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function closer(server: net.Server, sockets: Set<net.Socket>): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
}

export async function startHttpProxy(): Promise<TestProxy> {
  const seen: string[] = [];
  const auth: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    // Absolute-form: `GET http://host:port/path HTTP/1.1`.
    seen.push(`${req.method} ${req.url}`);
    if (req.headers['proxy-authorization']) auth.push(String(req.headers['proxy-authorization']));
    const target = new URL(String(req.url));
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const up = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers,
      },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req, client: net.Socket, head) => {
    seen.push(`CONNECT ${req.url}`);
    if (req.headers['proxy-authorization']) auth.push(String(req.headers['proxy-authorization']));
    const [host, port] = String(req.url).split(':');
    const up = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    sockets.add(up);
    up.on('close', () => sockets.delete(up));
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}`, seen, auth, close: closer(server, sockets) };
}

/** A SOCKS5 proxy (RFC 1928; RFC 1929 username/password when `credentials` is given). */
export async function startSocks5Proxy(credentials?: { user: string; password: string }): Promise<TestProxy> {
  const seen: string[] = [];
  const auth: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    let buf = Buffer.alloc(0);
    let stage: 'greeting' | 'auth' | 'request' | 'open' = 'greeting';
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (stage === 'greeting') {
        if (buf.length < 2 || buf.length < 2 + (buf[1] as number)) return;
        const methods = [...buf.subarray(2, 2 + (buf[1] as number))];
        buf = buf.subarray(2 + (buf[1] as number));
        const want = credentials ? 0x02 : 0x00;
        if (!methods.includes(want)) {
          client.end(Buffer.from([0x05, 0xff]));
          return;
        }
        client.write(Buffer.from([0x05, want]));
        stage = credentials ? 'auth' : 'request';
      }
      if (stage === 'auth') {
        if (buf.length < 2) return;
        const ulen = buf[1] as number;
        if (buf.length < 3 + ulen) return;
        const plen = buf[2 + ulen] as number;
        if (buf.length < 3 + ulen + plen) return;
        const user = buf.subarray(2, 2 + ulen).toString();
        const password = buf.subarray(3 + ulen, 3 + ulen + plen).toString();
        buf = buf.subarray(3 + ulen + plen);
        auth.push(`${user}:${password}`);
        const ok = user === credentials?.user && password === credentials?.password;
        client.write(Buffer.from([0x01, ok ? 0x00 : 0x01]));
        if (!ok) {
          client.end();
          return;
        }
        stage = 'request';
      }
      if (stage === 'request') {
        if (buf.length < 5) return;
        const atyp = buf[3];
        let host: string;
        let end: number;
        if (atyp === 0x01) {
          end = 10;
          if (buf.length < end) return;
          host = [...buf.subarray(4, 8)].join('.');
        } else if (atyp === 0x03) {
          const len = buf[4] as number;
          end = 5 + len + 2;
          if (buf.length < end) return;
          host = buf.subarray(5, 5 + len).toString();
        } else {
          client.end(Buffer.from([0x05, 0x08, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
          return;
        }
        const port = buf.readUInt16BE(end - 2);
        const rest = buf.subarray(end);
        buf = Buffer.alloc(0);
        stage = 'open';
        client.off('data', onData);
        seen.push(`SOCKS ${host}:${port}`);
        // The proxy resolves the name itself (`localhost` here): remote DNS.
        const up = net.connect(port, host === 'localhost' ? '127.0.0.1' : host, () => {
          client.write(Buffer.from([0x05, 0x00, 0x00, 0x01, 127, 0, 0, 1, 0, 0]));
          if (rest.length) up.write(rest);
          up.pipe(client);
          client.pipe(up);
        });
        sockets.add(up);
        up.on('close', () => sockets.delete(up));
        up.on('error', () => {
          client.end(Buffer.from([0x05, 0x05, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
        });
      }
    };
    client.on('data', onData);
  });
  const port = await listen(server);
  return { url: `socks5://127.0.0.1:${port}`, seen, auth, close: closer(server, sockets) };
}

import { randomInt } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A wechat-server (the companion of one-api and one-hub that answers the official account's
// messages) as a real HTTP server: `GET /api/wechat/user?code=` with `Authorization: <token>` answers
// `{success: true, message: "", data: "<openid>"}` for a code it issued (once), else
// `{success: false, message: "无效或过期的验证码"}`; a wrong token is `{success: false, message: "无权进行此操作，access token 无效"}`. Test side only.

export interface FakeWeChatServer {
  url: string;
  /** What the official account would reply to `openid`'s message: a six-digit code. */
  issueCode(openid: string): string;
  close(): Promise<void>;
}

function send(res: ServerResponse, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export async function startFakeWeChatServer(token: string): Promise<FakeWeChatServer> {
  const codes = new Map<string, string>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake.local');
    if (url.pathname !== '/api/wechat/user') return send(res, { success: false, message: 'not found' });
    if (req.headers.authorization !== token) {
      return send(res, { success: false, message: '无权进行此操作，access token 无效' });
    }
    const code = url.searchParams.get('code') ?? '';
    const openid = codes.get(code);
    codes.delete(code);
    if (!openid) return send(res, { success: false, message: '无效或过期的验证码' });
    send(res, { success: true, message: '', data: openid });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    issueCode(openid) {
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      codes.set(code, openid);
      return code;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

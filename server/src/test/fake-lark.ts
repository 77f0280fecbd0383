import { randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// Lark's (Feishu's) web sign-in as a real HTTP server on an ephemeral port, in Lark's wire format:
// `GET /open-apis/authen/v1/authorize` (approves at once as `nextUser`, back to redirect_uri with
// code and state), `POST /open-apis/authen/v2/oauth/token` (`{code: 0, access_token, ...}`; a bad
// or reused code is `{code: 20003, error: "invalid_grant", ...}`), `GET /open-apis/authen/v1/user_info`
// (`{code: 0, msg: "success", data: {open_id, union_id, name, en_name, avatar_url, email}}`; a bad
// token is 401 with code 20005). One server plays accounts.feishu.cn and open.feishu.cn. Test side only.

export interface LarkAccount {
  open_id: string;
  name: string;
  en_name?: string;
  email?: string;
  avatar_url?: string;
}

export interface FakeLark {
  url: string;
  nextUser: LarkAccount | undefined;
  issueCode(user: LarkAccount, redirectUri: string): string;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export async function startFakeLark(app: { appId: string; appSecret: string }, port = 0): Promise<FakeLark> {
  const codes = new Map<string, { user: LarkAccount; redirectUri: string }>();
  const tokens = new Map<string, LarkAccount>();
  const issueCode = (user: LarkAccount, redirectUri: string) => {
    const code = randomBytes(16).toString('hex');
    codes.set(code, { user, redirectUri });
    return code;
  };
  const fake: FakeLark = { url: '', nextUser: undefined, issueCode, close: async () => {} };
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake.local');
    if (
      req.method === 'GET' &&
      (url.pathname === '/open-apis/authen/v1/authorize' || url.pathname === '/open-apis/authen/v1/index')
    ) {
      const clientId = url.searchParams.get('client_id') ?? url.searchParams.get('app_id');
      const redirect = url.searchParams.get('redirect_uri');
      if (clientId !== app.appId || !redirect || !fake.nextUser)
        return send(res, 400, { code: 20029, msg: 'redirect_uri or app invalid' });
      const back = new URL(redirect);
      back.searchParams.set('code', issueCode(fake.nextUser, redirect));
      const state = url.searchParams.get('state');
      if (state) back.searchParams.set('state', state);
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/open-apis/authen/v2/oauth/token') {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, string>;
      if (body.client_id !== app.appId || body.client_secret !== app.appSecret) {
        return send(res, 400, {
          code: 20002,
          error: 'invalid_client',
          error_description: 'The app_secret is incorrect.',
        });
      }
      const entry = codes.get(body.code ?? '');
      codes.delete(body.code ?? '');
      if (!entry || body.grant_type !== 'authorization_code') {
        return send(res, 400, {
          code: 20003,
          error: 'invalid_grant',
          error_description: 'The authorization code is not found or has expired.',
        });
      }
      const token = `u-${randomBytes(16).toString('hex')}`;
      tokens.set(token, entry.user);
      return send(res, 200, {
        code: 0,
        access_token: token,
        expires_in: 7200,
        token_type: 'Bearer',
        scope: '',
      });
    }
    if (req.method === 'GET' && url.pathname === '/open-apis/authen/v1/user_info') {
      const user = tokens.get(String(req.headers.authorization ?? '').replace(/^Bearer\s+/i, ''));
      if (!user) return send(res, 401, { code: 20005, msg: 'The user access token passed is invalid' });
      return send(res, 200, {
        code: 0,
        msg: 'success',
        data: {
          name: user.name,
          en_name: user.en_name ?? user.name,
          avatar_url: user.avatar_url ?? 'https://s1-imfile.feishucdn.com/static-resource/v1/avatar.jpg',
          open_id: user.open_id,
          union_id: `on_${user.open_id}`,
          email: user.email ?? '',
          tenant_key: 'fake-tenant',
        },
      });
    }
    send(res, 404, { code: 404, msg: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

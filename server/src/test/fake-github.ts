import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// GitHub's OAuth web flow as a real HTTP server on an ephemeral port, in GitHub's wire format:
// `GET /login/oauth/authorize` (approves at once as `nextUser` and redirects to the app's callback
// with code and state), `POST /login/oauth/access_token` (JSON or form body; a bad, reused or
// foreign code is a 200 with `error: bad_verification_code`, as GitHub answers) and `GET /user`
// (401 `Bad credentials` without a valid token). One server plays both github.com and
// api.github.com. Test side only.

export interface GitHubAccount {
  id: number;
  login: string;
  name?: string | null;
  email?: string | null;
  avatar_url?: string;
}

export interface FakeGitHub {
  url: string;
  /** Who approves the next authorization. */
  nextUser: GitHubAccount | undefined;
  /** Where the authorize step sends the browser back (the console's /oauth/github). */
  callbackUrl: string;
  /** Issues a code for `user` as the authorize step would (for tests without a browser). */
  issueCode(user: GitHubAccount): string;
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

async function readBody(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (String(req.headers['content-type']).includes('application/json')) {
    return text ? (JSON.parse(text) as Record<string, string>) : {};
  }
  return Object.fromEntries(new URLSearchParams(text));
}

export async function startFakeGitHub(
  client: { clientId: string; clientSecret: string },
  port = 0,
): Promise<FakeGitHub> {
  const codes = new Map<string, GitHubAccount>();
  const tokens = new Map<string, GitHubAccount>();
  const issueCode = (user: GitHubAccount) => {
    const code = randomBytes(10).toString('hex');
    codes.set(code, user);
    return code;
  };
  const fake: FakeGitHub = {
    url: '',
    nextUser: undefined,
    callbackUrl: '',
    issueCode,
    close: async () => {},
  };
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake.local');
    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      if (url.searchParams.get('client_id') !== client.clientId || !fake.nextUser) {
        res.writeHead(404).end('Not Found');
        return;
      }
      const back = new URL(url.searchParams.get('redirect_uri') || fake.callbackUrl);
      back.searchParams.set('code', issueCode(fake.nextUser));
      const state = url.searchParams.get('state');
      if (state) back.searchParams.set('state', state);
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      const body = await readBody(req);
      if (body.client_id !== client.clientId || body.client_secret !== client.clientSecret) {
        return send(res, 200, {
          error: 'incorrect_client_credentials',
          error_description: 'The client_id and/or client_secret passed are incorrect.',
        });
      }
      const user = codes.get(body.code ?? '');
      codes.delete(body.code ?? '');
      if (!user) {
        return send(res, 200, {
          error: 'bad_verification_code',
          error_description: 'The code passed is incorrect or expired.',
          error_uri:
            'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#bad-verification-code',
        });
      }
      const token = `gho_${randomBytes(18).toString('hex')}`;
      tokens.set(token, user);
      return send(res, 200, { access_token: token, token_type: 'bearer', scope: 'user:email' });
    }
    if (req.method === 'GET' && url.pathname === '/user') {
      const token = String(req.headers.authorization ?? '').replace(/^(Bearer|token)\s+/i, '');
      const user = tokens.get(token);
      if (!user)
        return send(res, 401, {
          message: 'Bad credentials',
          documentation_url: 'https://docs.github.com/rest',
          status: '401',
        });
      return send(res, 200, {
        login: user.login,
        id: user.id,
        node_id: `U_${user.id}`,
        avatar_url: user.avatar_url ?? `https://avatars.githubusercontent.com/u/${user.id}?v=4`,
        type: 'User',
        name: user.name ?? null,
        email: user.email ?? null,
      });
    }
    send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
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

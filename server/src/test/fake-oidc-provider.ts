import { createPrivateKey, generateKeyPairSync, type JsonWebKey, type KeyObject, sign } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** A person the fake identity provider can sign in. */
export interface FakeOidcAccount {
  sub: string;
  claims: Record<string, unknown>;
}

/** How the fake spoils the ID token of its next token answers (the rest stays real). */
export type IdTokenTamper = 'forged' | 'expired' | 'wrong-issuer' | undefined;

/**
 * A real OpenID Connect provider (`oidc-provider`) in process: discovery, JWKS, authorization code
 * with PKCE, ID tokens signed with its own RS256 key, UserInfo. Its interaction step signs in
 * `nextAccount` and grants the requested scopes at once, so a browser or `followToCallback` goes
 * straight from the authorization URL to the client's redirect URI. `tamper` rewrites the ID
 * token in token answers: re-signed by a stranger (forged), expired, or naming another issuer.
 */
export class FakeOidcProvider {
  nextAccount: FakeOidcAccount | undefined;
  tamper: IdTokenTamper;
  private readonly accounts = new Map<string, FakeOidcAccount>();

  private constructor(
    readonly issuer: string,
    private readonly outer: Server,
    private readonly inner: Server,
    private readonly signingKey: KeyObject,
    private readonly kid: string,
  ) {}

  static async start(client: { clientId: string; clientSecret: string; redirectUris: string[] }) {
    const outer = createServer();
    await new Promise<void>((r) => outer.listen(0, '127.0.0.1', r));
    const issuer = `http://127.0.0.1:${(outer.address() as AddressInfo).port}`;
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwk = {
      ...(privateKey.export({ format: 'jwk' }) as JsonWebKey),
      kid: 'fake-1',
      use: 'sig',
      alg: 'RS256',
    };
    let self: FakeOidcProvider | undefined;
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: client.clientId,
          client_secret: client.clientSecret,
          redirect_uris: client.redirectUris,
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
      jwks: { keys: [jwk as never] },
      cookies: { keys: ['fake-oidc-cookie-key'] },
      claims: {
        openid: ['sub'],
        profile: ['name', 'preferred_username', 'picture'],
        email: ['email', 'email_verified'],
      },
      features: { devInteractions: { enabled: false } },
      findAccount: (_ctx, sub) => {
        const account = self?.accounts.get(sub);
        if (!account) return undefined;
        return { accountId: sub, claims: () => ({ sub, ...account.claims }) };
      },
    });
    const inner = createServer(async (req, res) => {
      if (req.url?.startsWith('/interaction/')) {
        try {
          const details = await provider.interactionDetails(req, res);
          const account = self?.nextAccount;
          if (!account) {
            res.writeHead(400).end('no account chosen for this sign-in');
            return;
          }
          self!.accounts.set(account.sub, account);
          const grant = new provider.Grant({
            accountId: account.sub,
            clientId: String(details.params.client_id),
          });
          grant.addOIDCScope(String(details.params.scope));
          const grantId = await grant.save();
          await provider.interactionFinished(
            req,
            res,
            { login: { accountId: account.sub }, consent: { grantId } },
            { mergeWithLastSubmission: false },
          );
        } catch (err) {
          res.writeHead(500).end(String(err));
        }
        return;
      }
      provider.callback()(req, res);
    });
    await new Promise<void>((r) => inner.listen(0, '127.0.0.1', r));
    const innerPort = (inner.address() as AddressInfo).port;
    self = new FakeOidcProvider(
      issuer,
      outer,
      inner,
      createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' }),
      'fake-1',
    );
    const fake = self;
    // The outer server passes everything through, so the token answers can be spoiled on request.
    outer.on('request', (req, res) => {
      const upstream = httpRequest(
        { host: '127.0.0.1', port: innerPort, method: req.method, path: req.url, headers: req.headers },
        (up) => {
          if (!(fake.tamper && req.url?.startsWith('/token'))) {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
            return;
          }
          const chunks: Buffer[] = [];
          up.on('data', (c: Buffer) => chunks.push(c));
          up.on('end', () => {
            const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
            if (typeof body.id_token === 'string') body.id_token = fake.spoil(body.id_token);
            const text = JSON.stringify(body);
            const headers = { ...up.headers, 'content-length': String(Buffer.byteLength(text)) };
            res.writeHead(up.statusCode ?? 502, headers).end(text);
          });
        },
      );
      req.pipe(upstream);
    });
    return self;
  }

  private spoil(idToken: string): string {
    const [h, p] = idToken.split('.') as [string, string];
    const header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as Record<string, unknown>;
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
    let key = this.signingKey;
    if (this.tamper === 'expired') {
      payload.iat = Math.floor(Date.now() / 1000) - 7200;
      payload.exp = Math.floor(Date.now() / 1000) - 3600;
    } else if (this.tamper === 'wrong-issuer') {
      payload.iss = 'https://someone-else.example';
    } else {
      // Same header and kid, signed by a key the provider never published.
      key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    }
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const input = `${enc({ ...header, kid: this.kid })}.${enc(payload)}`;
    return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
  }

  /**
   * Follows an authorization URL through the provider's redirects (keeping its cookies) and
   * returns the URL it finally sends the browser to: the client's redirect URI with code and state.
   */
  async followToCallback(authorizationUrl: string, callbackPrefix: string): Promise<URL> {
    const jar = new Map<string, string>();
    let url = authorizationUrl;
    for (let hop = 0; hop < 10; hop++) {
      if (url.startsWith(callbackPrefix)) return new URL(url);
      const res = await fetch(url, {
        redirect: 'manual',
        headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const eq = pair!.indexOf('=');
        jar.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1));
      }
      const location = res.headers.get('location');
      if (!location) throw new Error(`the provider stopped at ${url}: ${res.status} ${await res.text()}`);
      url = new URL(location, url).href;
    }
    throw new Error('too many redirects');
  }

  async close() {
    this.outer.closeAllConnections();
    this.inner.closeAllConnections();
    await Promise.all([new Promise((r) => this.outer.close(r)), new Promise((r) => this.inner.close(r))]);
  }
}

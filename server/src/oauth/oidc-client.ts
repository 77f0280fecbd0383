import * as client from 'openid-client';

const DISCOVERY_TTL_MS = 10 * 60_000;
const HTTP_TIMEOUT_SECONDS = 10;

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
}

/** The claims of a verified ID token (and of the UserInfo answer, when the provider has one). */
export type OidcClaims = Record<string, unknown> & { sub: string };

/**
 * OpenID Connect against the configured issuer through `openid-client`: discovery (cached ten
 * minutes per issuer and client), authorization code with PKCE (S256) and a nonce, and an ID token
 * whose issuer, audience, expiry and nonce are checked and whose signature is verified against
 * the issuer's JWKS. Made once by the composition root.
 */
export class OidcClient {
  private cached: { key: string; at: number; config: Promise<client.Configuration> } | undefined;

  constructor(private readonly nowMs: () => number = Date.now) {}

  private configuration(settings: OidcSettings): Promise<client.Configuration> {
    const key = JSON.stringify([settings.issuer, settings.clientId, settings.clientSecret]);
    const c = this.cached;
    if (c && c.key === key && this.nowMs() - c.at < DISCOVERY_TTL_MS) return c.config;
    const issuer = new URL(settings.issuer);
    const config = client.discovery(issuer, settings.clientId, settings.clientSecret, undefined, {
      timeout: HTTP_TIMEOUT_SECONDS,
      // An http:// issuer is accepted only because the administrator typed it (a private network).
      execute: [
        client.enableNonRepudiationChecks,
        ...(issuer.protocol === 'http:' ? [client.allowInsecureRequests] : []),
      ],
    });
    this.cached = { key, at: this.nowMs(), config };
    // A failed discovery is not kept: the next sign-in tries again.
    config.catch(() => {
      if (this.cached?.config === config) this.cached = undefined;
    });
    return config;
  }

  /**
   * A PKCE verifier and a nonce, and the authorization URL for them once the state that will keep
   * them is known.
   */
  async prepare(
    settings: OidcSettings,
    redirectUri: string,
  ): Promise<{ verifier: string; nonce: string; url: (state: string) => string }> {
    const config = await this.configuration(settings);
    const verifier = client.randomPKCECodeVerifier();
    const nonce = client.randomNonce();
    const challenge = await client.calculatePKCECodeChallenge(verifier);
    const url = (state: string) =>
      client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: settings.scopes.trim() || 'openid profile email',
        state,
        nonce,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }).href;
    return { verifier, nonce, url };
  }

  /**
   * Exchanges the code for tokens and returns the verified ID token's claims, completed by the
   * UserInfo endpoint for the subject when the provider has one. `callback` holds the parameters
   * the provider sent to the redirect URI (code, state, iss).
   */
  async exchange(
    settings: OidcSettings,
    callback: URL,
    checks: { state: string; verifier: string; nonce: string },
  ): Promise<OidcClaims> {
    const config = await this.configuration(settings);
    const tokens = await client.authorizationCodeGrant(config, callback, {
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      pkceCodeVerifier: checks.verifier,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new Error('the provider sent no ID token');
    let info: Record<string, unknown> = {};
    if (config.serverMetadata().userinfo_endpoint && tokens.access_token) {
      info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    }
    // The ID token's claims win: they are signed.
    return { ...info, ...claims } as OidcClaims;
  }
}

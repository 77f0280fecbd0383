import { request } from 'undici';

export interface TurnstileVerifier {
  /** True when the challenge token is accepted by the verification service. */
  verify(token: string, secret: string, ip: string): Promise<boolean>;
}

/** Cloudflare Turnstile's siteverify call (form-encoded POST, JSON answer with `success`). */
export class HttpTurnstileVerifier implements TurnstileVerifier {
  constructor(private readonly url: string) {}

  async verify(token: string, secret: string, ip: string): Promise<boolean> {
    if (!token) return false;
    try {
      const res = await request(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ secret, response: token, remoteip: ip }).toString(),
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      const body = (await res.body.json()) as { success?: boolean };
      return res.statusCode === 200 && body.success === true;
    } catch {
      return false;
    }
  }
}

// A small client of the gateway's management API (/api): the `{success, message, data}` envelope
// and a session cookie.

export class ManagementClient {
  private cookie = '';

  constructor(readonly origin: string) {}

  async login(username: string, password: string): Promise<void> {
    const res = await fetch(`${this.origin}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
    await this.unwrap(res, 'POST /api/user/login');
    this.cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    if (!this.cookie) throw new Error(`login of ${username} set no session cookie`);
  }

  /** Calls an API route; returns `data`, throws with the server's message on failure. */
  async call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.origin}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.cookie ? { cookie: this.cookie } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return this.unwrap<T>(res, `${method} ${path}`);
  }

  /** Like `call`, but returns the HTTP status instead of throwing when the answer is a failure. */
  async try(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ ok: boolean; status: number; message: string }> {
    try {
      await this.call(method, path, body);
      return { ok: true, status: 200, message: '' };
    } catch (err) {
      const e = err as ApiCallError;
      return { ok: false, status: e.status ?? 0, message: e.message };
    }
  }

  private async unwrap<T>(res: Response, what: string): Promise<T> {
    const text = await res.text();
    let body: { success?: boolean; message?: string; data?: unknown } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      // Not the envelope: reported below with the raw text.
    }
    if (!res.ok || body.success !== true) {
      throw new ApiCallError(
        `${what} failed (${res.status}): ${body.message ?? text.slice(0, 300)}`,
        res.status,
      );
    }
    return body.data as T;
  }
}

export class ApiCallError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// What every payment gateway fake shares: an HTTP server on an ephemeral port, the "checkout" page
// a browser lands on (one Pay button), and the delivery of a signed callback to the order's
// notify_url. Test side only; each fake signs in its own gateway's format.

/** A callback as a gateway sends it. */
export interface SignedCallback {
  method: 'GET' | 'POST';
  /** The notify URL, with the query for a GET callback. */
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface OpenedPayment {
  tradeNo: string;
  notifyUrl: string;
  returnUrl: string;
  /** In cents (fen) of `currency`. */
  cents: number;
  currency: string;
  gatewayNo: string;
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(text);
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The checkout page: the amount and one Pay button posting to `action`. */
export function sendPayPage(res: ServerResponse, title: string, p: OpenedPayment, action: string) {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><title>${escapeHtml(title)}</title><h1>${escapeHtml(title)}</h1>
<p data-testid="fake-amount">${(p.cents / 100).toFixed(2)} ${escapeHtml(p.currency)}</p>
<form method="post" action="${escapeHtml(action)}"><button type="submit" data-testid="fake-pay">Pay</button></form>`);
}

/** Sends a callback over HTTP and answers with the merchant's reply. */
export async function deliver(cb: SignedCallback): Promise<{ status: number; body: string }> {
  const res = await fetch(cb.url, {
    method: cb.method,
    headers: cb.headers,
    ...(cb.method === 'POST' ? { body: cb.body } : {}),
  });
  return { status: res.status, body: await res.text() };
}

export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>,
  port = 0,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake.local');
    handler(req, res, url).catch((err: Error) => {
      if (!res.headersSent) sendJson(res, 500, { error: err.message });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

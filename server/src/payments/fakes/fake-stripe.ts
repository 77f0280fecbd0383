import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import {
  deliver,
  listen,
  type OpenedPayment,
  readBody,
  type SignedCallback,
  sendJson,
  sendPayPage,
} from './fake-gateway-server.js';

// Stripe's API for Checkout as a real HTTP server: `POST /v1/checkout/sessions` (form-encoded with
// bracketed keys, `Authorization: Bearer <secret key>`) answers a `checkout.session`; its `url` is
// this server's checkout page, whose Pay button sends the `checkout.session.completed` event to the
// webhook endpoint, signed with `stripe.webhooks.generateTestHeaderString` exactly as Stripe signs
// (Stripe-Signature: t=...,v1=HMAC-SHA256), then sends the browser to success_url.

export interface FakeStripe {
  url: string;
  /** The payments opened, by trade number. */
  opened: Map<string, OpenedPayment>;
  /** The signed `checkout.session.completed` event for an opened order (amount overridable). */
  completed(tradeNo: string, override?: { cents?: number; currency?: string }): SignedCallback;
  pay(tradeNo: string): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

export async function startFakeStripe(opts: {
  secretKey: string;
  webhookSecret: string;
  /** The endpoint registered in Stripe's dashboard: the gateway's notify URL. */
  webhookUrl: () => string;
  port?: number;
}): Promise<FakeStripe> {
  const opened = new Map<string, OpenedPayment>();
  const sessions = new Map<string, string>();
  const stripe = new Stripe('sk_test_fake');
  const completed = (
    tradeNo: string,
    override: { cents?: number; currency?: string } = {},
  ): SignedCallback => {
    const p = opened.get(tradeNo);
    if (!p) throw new Error(`no session for ${tradeNo}`);
    const payload = JSON.stringify({
      id: `evt_${randomBytes(12).toString('hex')}`,
      object: 'event',
      type: 'checkout.session.completed',
      api_version: '2025-01-01',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: p.gatewayNo,
          object: 'checkout.session',
          client_reference_id: tradeNo,
          metadata: { trade_no: tradeNo },
          amount_total: override.cents ?? p.cents,
          currency: (override.currency ?? p.currency).toLowerCase(),
          payment_status: 'paid',
          status: 'complete',
          mode: 'payment',
        },
      },
    });
    const signature = stripe.webhooks.generateTestHeaderString({ payload, secret: opts.webhookSecret });
    return {
      method: 'POST',
      url: opts.webhookUrl(),
      headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature },
      body: payload,
    };
  };
  const pay = (tradeNo: string) => deliver(completed(tradeNo));
  const server = await listen(async (req, res, url) => {
    if (req.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
      if (req.headers.authorization !== `Bearer ${opts.secretKey}`)
        return sendJson(res, 401, {
          error: { type: 'invalid_request_error', message: 'Invalid API Key provided' },
        });
      const form = new URLSearchParams(await readBody(req));
      const tradeNo = form.get('client_reference_id') ?? '';
      const cents = Number(form.get('line_items[0][price_data][unit_amount]'));
      const currency = form.get('line_items[0][price_data][currency]') ?? '';
      if (!tradeNo || !Number.isInteger(cents) || cents <= 0 || !currency)
        return sendJson(res, 400, {
          error: { type: 'invalid_request_error', message: 'Missing required param' },
        });
      const id = `cs_test_${randomBytes(12).toString('hex')}`;
      const returnUrl = form.get('success_url') ?? '';
      opened.set(tradeNo, {
        tradeNo,
        notifyUrl: opts.webhookUrl(),
        returnUrl,
        cents,
        currency: currency.toUpperCase(),
        gatewayNo: id,
      });
      sessions.set(id, tradeNo);
      return sendJson(res, 200, {
        id,
        object: 'checkout.session',
        client_reference_id: tradeNo,
        amount_total: cents,
        currency,
        mode: 'payment',
        payment_status: 'unpaid',
        status: 'open',
        url: `${server.url}/c/pay/${id}`,
      });
    }
    const m = /^\/c\/pay\/(cs_test_\w+)$/.exec(url.pathname);
    const tradeNo = m ? sessions.get(m[1]!) : undefined;
    if (m && tradeNo) {
      const p = opened.get(tradeNo)!;
      if (req.method === 'GET') return sendPayPage(res, 'Stripe Checkout (test)', p, url.pathname);
      await pay(tradeNo);
      res.writeHead(303, { location: p.returnUrl }).end();
      return;
    }
    sendJson(res, 404, { error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } });
  }, opts.port);
  return { url: server.url, opened, completed, pay, close: server.close };
}

import type Stripe from 'stripe';
import {
  GATEWAY_TIMEOUT_MS,
  type GatewayConfig,
  type GatewayDriver,
  GatewayError,
  header,
  type NotifyRequest,
  type NotifyResult,
  type OpenPayment,
  type PayRequest,
} from '../gateway.js';

// Stripe: a Checkout Session per order (its id is the gateway number), paid in the session's
// currency; the `checkout.session.completed` webhook, signed with the endpoint's secret, settles it.
// Both through the official `stripe` package. `api_base` (empty in production) points the client
// at another address, e.g. a test double.

// Loaded on first use: a node that never takes a Stripe payment keeps the package out of its memory.
async function client(config: GatewayConfig): Promise<Stripe> {
  const { default: StripeClient } = await import('stripe');
  const opts: ConstructorParameters<typeof Stripe>[1] = { maxNetworkRetries: 1, timeout: GATEWAY_TIMEOUT_MS };
  if (config.api_base) {
    const u = new URL(config.api_base);
    opts.host = u.hostname;
    opts.port = u.port || (u.protocol === 'https:' ? 443 : 80);
    opts.protocol = u.protocol === 'https:' ? 'https' : 'http';
  }
  return new StripeClient(config.secret_key ?? '', opts);
}

/** Stripe counts in the currency's smallest unit; USD and CNY both have two decimals. */
const minor = (total: number) => Math.round(total * 100);

export const stripeDriver: GatewayDriver = {
  async open(config: GatewayConfig, p: OpenPayment): Promise<PayRequest> {
    let session: Stripe.Checkout.Session;
    try {
      session = await (await client(config)).checkout.sessions.create({
        mode: 'payment',
        client_reference_id: p.tradeNo,
        metadata: { trade_no: p.tradeNo },
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: p.currency.toLowerCase(),
              unit_amount: minor(p.total),
              product_data: { name: p.subject },
            },
          },
        ],
        success_url: p.returnUrl,
        cancel_url: p.returnUrl,
      });
    } catch (err) {
      throw new GatewayError(`Stripe refused the checkout session: ${(err as Error).message}`);
    }
    if (!session.url) throw new GatewayError('Stripe answered a checkout session without a URL');
    return { type: 1, data: { url: session.url }, gatewayNo: session.id };
  },

  async verify(config: GatewayConfig, req: NotifyRequest): Promise<NotifyResult> {
    const signature = header(req, 'stripe-signature');
    if (!signature) return { kind: 'refused', why: 'no Stripe-Signature header' };
    const stripe = await client(config);
    let event: Stripe.Event;
    try {
      event = stripe.webhooks.constructEvent(req.rawBody, signature, config.webhook_secret ?? '');
    } catch (err) {
      return { kind: 'refused', why: (err as Error).message };
    }
    if (
      event.type !== 'checkout.session.completed' &&
      event.type !== 'checkout.session.async_payment_succeeded'
    )
      return { kind: 'ignored', why: `event ${event.type}` };
    const session = event.data.object;
    if (session.payment_status !== 'paid')
      return { kind: 'ignored', why: `payment_status ${session.payment_status}` };
    const tradeNo = session.client_reference_id ?? session.metadata?.trade_no;
    if (!tradeNo || session.amount_total == null || !session.currency)
      return { kind: 'refused', why: 'a completed session without its order, amount or currency' };
    return {
      kind: 'paid',
      tradeNo,
      payment: {
        gatewayNo: session.id,
        cents: session.amount_total,
        currency: session.currency.toUpperCase(),
      },
    };
  },

  ack: () => ({ status: 200, contentType: 'application/json', body: '{"received":true}' }),
  nack: (why) => ({ status: 400, contentType: 'application/json', body: JSON.stringify({ error: why }) }),
};

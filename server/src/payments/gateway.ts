import type { Payment } from '../db/queries/orders.js';

// One interface for every payment gateway type: open a payment for an order, and read a callback
// the gateway sent about it. Drivers hold no state; each call gets the gateway's opened config.

/** A gateway's settings (PAYMENT_CONFIG_FIELDS of its type), unsealed. */
export type GatewayConfig = Readonly<Record<string, string>>;

/** What a driver needs to open one payment. */
export interface OpenPayment {
  tradeNo: string;
  /** What the payer is charged, in `currency`. */
  total: number;
  currency: string;
  /** Shown on the gateway's page. */
  subject: string;
  /** Where the gateway posts its callback: `<notify domain>/api/payment/notify/<uuid>`. */
  notifyUrl: string;
  /** Where the payer comes back to. */
  returnUrl: string;
  /** The payer's address, for gateways that ask for it. */
  clientIp: string;
}

/** How the console sends the payer on (PayRequestType), and the gateway's number when it gives one now. */
export interface PayRequest {
  type: 1 | 2;
  data: { url: string; method?: string; params?: Record<string, string> };
  gatewayNo?: string;
}

/** A callback as it arrived: the bytes are kept, since signatures cover them. */
export interface NotifyRequest {
  method: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  query: Readonly<Record<string, string>>;
  rawBody: Buffer;
}

export type NotifyResult =
  /** Signed by the gateway and saying the order was paid. */
  | { kind: 'paid'; tradeNo: string; payment: Payment }
  /** Signed, but about something else (an unpaid state, another event type). */
  | { kind: 'ignored'; why: string }
  /** Not provably from the gateway. */
  | { kind: 'refused'; why: string };

/** The HTTP answer a gateway expects. */
export interface NotifyReply {
  status: number;
  contentType: string;
  body: string;
}

export interface GatewayDriver {
  open(config: GatewayConfig, payment: OpenPayment): Promise<PayRequest>;
  verify(config: GatewayConfig, req: NotifyRequest, nowSeconds: number): Promise<NotifyResult> | NotifyResult;
  /** "Received, stop sending". */
  ack(): NotifyReply;
  /** "Not accepted" (the gateway may send again). */
  nack(why: string): NotifyReply;
}

/** Thrown when the gateway refuses to open a payment or cannot be reached. */
export class GatewayError extends Error {}

export function header(req: NotifyRequest, name: string): string {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
}

/** A form body or, for a GET callback, the query string: as a flat record of strings. */
export function formFields(req: NotifyRequest): Record<string, string> {
  if (req.method === 'GET' || req.rawBody.length === 0) return { ...req.query };
  return Object.fromEntries(new URLSearchParams(req.rawBody.toString('utf8')));
}

/** The decimal text of an amount in a currency's major unit (EPay's `money`, Alipay's `total_amount`) in cents. */
export function centsOf(text: string | undefined): number | null {
  if (!text || !/^\d{1,12}(\.\d{1,2})?$/.test(text)) return null;
  const [whole, frac = ''] = text.split('.');
  return Number(whole) * 100 + Number(frac.padEnd(2, '0'));
}

export const money = (v: number) => v.toFixed(2);

/** Outbound calls to a gateway give up after this long (the payer is waiting for the answer). */
export const GATEWAY_TIMEOUT_MS = 15_000;

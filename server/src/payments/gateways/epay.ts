import { createHash, timingSafeEqual } from 'node:crypto';
import {
  centsOf,
  formFields,
  type GatewayConfig,
  type GatewayDriver,
  money,
  type NotifyRequest,
  type NotifyResult,
  type OpenPayment,
  type PayRequest,
} from '../gateway.js';

// EPay (易支付): the payer's browser posts a form to `<pay_domain>/submit.php`; the gateway calls
// back (GET or POST) with the same MD5 signature: the non-empty fields except sign and sign_type,
// sorted by name, joined as k=v&k=v, followed by the merchant key. It expects the text "success".

/** EPay's signature of `fields` with `key`. */
export function epaySign(fields: Record<string, string>, key: string): string {
  const text = Object.keys(fields)
    .filter((k) => k !== 'sign' && k !== 'sign_type' && fields[k] !== '' && fields[k] !== undefined)
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('&');
  return createHash('md5')
    .update(text + key, 'utf8')
    .digest('hex');
}

export const epayDriver: GatewayDriver = {
  async open(config: GatewayConfig, p: OpenPayment): Promise<PayRequest> {
    const params: Record<string, string> = {
      pid: config.partner_id ?? '',
      out_trade_no: p.tradeNo,
      notify_url: p.notifyUrl,
      return_url: p.returnUrl,
      name: p.subject,
      money: money(p.total),
    };
    if (config.pay_type) params.type = config.pay_type;
    params.sign = epaySign(params, config.key ?? '');
    params.sign_type = 'MD5';
    const base = (config.pay_domain ?? '').replace(/\/+$/, '');
    // EPay's submit.php takes the signed fields by GET as by POST: a link keeps the console's
    // Content-Security-Policy (`form-action 'self'`) from having to allow the gateway's origin.
    return { type: 1, data: { url: `${base}/submit.php?${new URLSearchParams(params)}`, method: 'GET' } };
  },

  verify(config: GatewayConfig, req: NotifyRequest): NotifyResult {
    const f = formFields(req);
    if (!f.sign) return { kind: 'refused', why: 'unsigned' };
    const expected = Buffer.from(epaySign(f, config.key ?? ''), 'utf8');
    const given = Buffer.from(f.sign.toLowerCase(), 'utf8');
    if (expected.length !== given.length || !timingSafeEqual(expected, given))
      return { kind: 'refused', why: 'bad MD5 signature' };
    if (f.pid !== undefined && f.pid !== config.partner_id)
      return { kind: 'refused', why: 'another merchant' };
    if (f.trade_status !== 'TRADE_SUCCESS') return { kind: 'ignored', why: `trade_status ${f.trade_status}` };
    const cents = centsOf(f.money);
    if (!f.out_trade_no || cents === null) return { kind: 'refused', why: 'no order or amount' };
    // EPay names no currency: the payment is in the gateway's configured one (empty here).
    return {
      kind: 'paid',
      tradeNo: f.out_trade_no,
      payment: { gatewayNo: f.trade_no ?? '', cents, currency: '' },
    };
  },

  ack: () => ({ status: 200, contentType: 'text/plain', body: 'success' }),
  nack: () => ({ status: 200, contentType: 'text/plain', body: 'fail' }),
};

import { createSign, createVerify } from 'node:crypto';
import {
  centsOf,
  formFields,
  GATEWAY_TIMEOUT_MS,
  type GatewayConfig,
  type GatewayDriver,
  GatewayError,
  money,
  type NotifyRequest,
  type NotifyResult,
  type OpenPayment,
  type PayRequest,
} from '../gateway.js';
import { privateKeyOf, publicKeyOf } from './keys.js';

// Alipay open platform with RSA2 (SHA256withRSA) signatures, through Node's crypto: `pagepay`
// sends the payer to alipay.trade.page.pay with a signed URL; `facepay` asks alipay.trade.precreate
// for a QR code. The asynchronous notice (a form POST) is verified with Alipay's public key and
// answered with the text "success". Alipay charges in CNY.

export const ALIPAY_GATEWAY = 'https://openapi.alipay.com/gateway.do';

/** The text Alipay signs: the non-empty fields except sign (and, for notices, sign_type), sorted, k=v&k=v. */
export function alipaySignText(fields: Record<string, string>, dropSignType: boolean): string {
  return Object.keys(fields)
    .filter(
      (k) =>
        k !== 'sign' && !(dropSignType && k === 'sign_type') && fields[k] !== '' && fields[k] !== undefined,
    )
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('&');
}

export function rsa2Sign(text: string, privateKey: string): string {
  return createSign('RSA-SHA256').update(text, 'utf8').sign(privateKeyOf(privateKey), 'base64');
}

export function rsa2Verify(text: string, signature: string, publicKey: string): boolean {
  try {
    return createVerify('RSA-SHA256')
      .update(text, 'utf8')
      .verify(publicKeyOf(publicKey), signature, 'base64');
  } catch {
    return false;
  }
}

/** Alipay's timestamp: Beijing time as yyyy-MM-dd HH:mm:ss. */
function beijingTime(ms: number): string {
  return new Date(ms + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
}

function request(config: GatewayConfig, method: string, p: OpenPayment, biz: Record<string, string>) {
  const fields: Record<string, string> = {
    app_id: config.app_id ?? '',
    method,
    format: 'JSON',
    charset: 'utf-8',
    sign_type: 'RSA2',
    timestamp: beijingTime(Date.now()),
    version: '1.0',
    notify_url: p.notifyUrl,
    biz_content: JSON.stringify(biz),
  };
  if (method === 'alipay.trade.page.pay') fields.return_url = p.returnUrl;
  fields.sign = rsa2Sign(alipaySignText(fields, false), config.private_key ?? '');
  return fields;
}

export const alipayDriver: GatewayDriver = {
  async open(config: GatewayConfig, p: OpenPayment): Promise<PayRequest> {
    const gateway = config.api_base || ALIPAY_GATEWAY;
    const biz = { out_trade_no: p.tradeNo, total_amount: money(p.total), subject: p.subject };
    if ((config.pay_type || 'pagepay') === 'pagepay') {
      const fields = request(config, 'alipay.trade.page.pay', p, {
        ...biz,
        product_code: 'FAST_INSTANT_TRADE_PAY',
      });
      return { type: 1, data: { url: `${gateway}?${new URLSearchParams(fields).toString()}` } };
    }
    const fields = request(config, 'alipay.trade.precreate', p, biz);
    let text: string;
    try {
      const res = await fetch(gateway, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded;charset=utf-8' },
        body: new URLSearchParams(fields).toString(),
        signal: AbortSignal.timeout(GATEWAY_TIMEOUT_MS),
      });
      text = await res.text();
    } catch (err) {
      throw new GatewayError(`Alipay could not be reached: ${(err as Error).message}`);
    }
    // The answer's signature covers the exact text of its response object.
    const match = /"alipay_trade_precreate_response"\s*:\s*(\{[^{}]*\})\s*,\s*"sign"\s*:\s*"([^"]+)"/.exec(
      text,
    );
    if (!match || !rsa2Verify(match[1]!, match[2]!, config.public_key ?? ''))
      throw new GatewayError('Alipay answered without a valid signature');
    const body = JSON.parse(match[1]!) as { code?: string; msg?: string; sub_msg?: string; qr_code?: string };
    if (body.code !== '10000' || !body.qr_code)
      throw new GatewayError(`Alipay refused the payment: ${body.sub_msg ?? body.msg ?? body.code}`);
    return { type: 2, data: { url: body.qr_code } };
  },

  verify(config: GatewayConfig, req: NotifyRequest): NotifyResult {
    const f = formFields(req);
    if (!f.sign) return { kind: 'refused', why: 'unsigned' };
    if (f.sign_type && f.sign_type !== 'RSA2') return { kind: 'refused', why: `sign_type ${f.sign_type}` };
    if (!rsa2Verify(alipaySignText(f, true), f.sign, config.public_key ?? ''))
      return { kind: 'refused', why: 'bad RSA2 signature' };
    if (f.app_id !== config.app_id) return { kind: 'refused', why: 'another app_id' };
    if (f.trade_status !== 'TRADE_SUCCESS' && f.trade_status !== 'TRADE_FINISHED')
      return { kind: 'ignored', why: `trade_status ${f.trade_status}` };
    const cents = centsOf(f.total_amount);
    if (!f.out_trade_no || cents === null) return { kind: 'refused', why: 'no order or amount' };
    return {
      kind: 'paid',
      tradeNo: f.out_trade_no,
      payment: { gatewayNo: f.trade_no ?? '', cents, currency: 'CNY' },
    };
  },

  ack: () => ({ status: 200, contentType: 'text/plain', body: 'success' }),
  nack: () => ({ status: 200, contentType: 'text/plain', body: 'failure' }),
};

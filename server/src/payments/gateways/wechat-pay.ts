import { createDecipheriv, createSign, createVerify, randomBytes } from 'node:crypto';
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
import { privateKeyOf, publicKeyOf } from './keys.js';

// WeChat Pay API v3, Native payment (a QR code), through Node's crypto. Requests carry the
// merchant's WECHATPAY2-SHA256-RSA2048 signature; answers and callbacks carry the platform's
// (Wechatpay-Timestamp/-Nonce/-Signature over "timestamp\nnonce\nbody\n"), checked with the
// platform public key. The callback's resource is AES-256-GCM sealed with the APIv3 key. Amounts are
// fen of CNY.

export const WECHAT_PAY_API = 'https://api.mch.weixin.qq.com';
/** Callbacks older or newer than this are refused (replayed captures). */
const CLOCK_SKEW_SECONDS = 300;

/** The Authorization header of a request from the merchant. */
export function merchantAuthorization(
  config: GatewayConfig,
  method: string,
  pathAndQuery: string,
  body: string,
  nowSeconds: number,
): string {
  const nonce = randomBytes(16).toString('hex');
  const message = `${method}\n${pathAndQuery}\n${nowSeconds}\n${nonce}\n${body}\n`;
  const signature = createSign('RSA-SHA256')
    .update(message, 'utf8')
    .sign(privateKeyOf(config.mch_private_key ?? ''), 'base64');
  return `WECHATPAY2-SHA256-RSA2048 mchid="${config.mch_id}",nonce_str="${nonce}",signature="${signature}",timestamp="${nowSeconds}",serial_no="${config.mch_certificate_serial_number}"`;
}

/** Whether headers + body carry the platform's signature. */
export function platformSigned(
  config: GatewayConfig,
  headers: (name: string) => string,
  body: string,
): boolean {
  const ts = headers('wechatpay-timestamp');
  const nonce = headers('wechatpay-nonce');
  const signature = headers('wechatpay-signature');
  if (!ts || !nonce || !signature) return false;
  try {
    return createVerify('RSA-SHA256')
      .update(`${ts}\n${nonce}\n${body}\n`, 'utf8')
      .verify(publicKeyOf(config.platform_public_key ?? ''), signature, 'base64');
  } catch {
    return false;
  }
}

/** Opens a callback's `resource` (AEAD_AES_256_GCM: ciphertext followed by its 16-byte tag). */
export function openResource(
  apiV3Key: string,
  resource: { ciphertext: string; nonce: string; associated_data?: string },
): string {
  const data = Buffer.from(resource.ciphertext, 'base64');
  if (data.length < 17) throw new Error('ciphertext too short');
  const decipher = createDecipheriv(
    'aes-256-gcm',
    Buffer.from(apiV3Key, 'utf8'),
    Buffer.from(resource.nonce, 'utf8'),
  );
  decipher.setAuthTag(data.subarray(data.length - 16));
  decipher.setAAD(Buffer.from(resource.associated_data ?? '', 'utf8'));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString(
    'utf8',
  );
}

interface Transaction {
  mchid?: string;
  out_trade_no?: string;
  transaction_id?: string;
  trade_state?: string;
  amount?: { total?: number; currency?: string };
}

export const wechatPayDriver: GatewayDriver = {
  async open(config: GatewayConfig, p: OpenPayment): Promise<PayRequest> {
    const base = (config.api_base || WECHAT_PAY_API).replace(/\/+$/, '');
    const path = '/v3/pay/transactions/native';
    const body = JSON.stringify({
      appid: config.app_id,
      mchid: config.mch_id,
      description: p.subject,
      out_trade_no: p.tradeNo,
      notify_url: p.notifyUrl,
      amount: { total: Math.round(p.total * 100), currency: 'CNY' },
    });
    let res: Response;
    let text: string;
    try {
      res = await fetch(base + path, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: merchantAuthorization(config, 'POST', path, body, Math.floor(Date.now() / 1000)),
        },
        body,
        signal: AbortSignal.timeout(GATEWAY_TIMEOUT_MS),
      });
      text = await res.text();
    } catch (err) {
      throw new GatewayError(`WeChat Pay could not be reached: ${(err as Error).message}`);
    }
    if (!platformSigned(config, (n) => res.headers.get(n) ?? '', text))
      throw new GatewayError(`WeChat Pay answered ${res.status} without the platform's signature`);
    const answer = JSON.parse(text) as { code_url?: string; code?: string; message?: string };
    if (res.status !== 200 || !answer.code_url)
      throw new GatewayError(
        `WeChat Pay refused the payment: ${answer.message ?? answer.code ?? res.status}`,
      );
    return { type: 2, data: { url: answer.code_url } };
  },

  verify(config: GatewayConfig, req: NotifyRequest, nowSeconds: number): NotifyResult {
    const body = req.rawBody.toString('utf8');
    if (!platformSigned(config, (n) => header(req, n), body))
      return { kind: 'refused', why: 'bad or missing platform signature' };
    const ts = Number(header(req, 'wechatpay-timestamp'));
    if (!Number.isFinite(ts) || Math.abs(nowSeconds - ts) > CLOCK_SKEW_SECONDS)
      return { kind: 'refused', why: 'timestamp outside five minutes' };
    let tx: Transaction;
    try {
      const notice = JSON.parse(body) as {
        event_type?: string;
        resource?: { ciphertext: string; nonce: string; associated_data?: string };
      };
      if (notice.event_type !== 'TRANSACTION.SUCCESS')
        return { kind: 'ignored', why: `event ${notice.event_type}` };
      if (!notice.resource) return { kind: 'refused', why: 'no resource' };
      tx = JSON.parse(openResource(config.mch_apiv3_key ?? '', notice.resource)) as Transaction;
    } catch (err) {
      return { kind: 'refused', why: `resource cannot be opened: ${(err as Error).message}` };
    }
    if (tx.mchid !== config.mch_id) return { kind: 'refused', why: 'another merchant' };
    if (tx.trade_state !== 'SUCCESS') return { kind: 'ignored', why: `trade_state ${tx.trade_state}` };
    if (!tx.out_trade_no || !Number.isInteger(tx.amount?.total))
      return { kind: 'refused', why: 'no order or amount' };
    return {
      kind: 'paid',
      tradeNo: tx.out_trade_no,
      payment: {
        gatewayNo: tx.transaction_id ?? '',
        cents: tx.amount!.total!,
        currency: tx.amount?.currency ?? 'CNY',
      },
    };
  },

  ack: () => ({ status: 204, contentType: 'application/json', body: '' }),
  nack: (why) => ({
    status: 400,
    contentType: 'application/json',
    body: JSON.stringify({ code: 'FAIL', message: why }),
  }),
};

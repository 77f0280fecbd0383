import { createCipheriv, createSign, createVerify, randomBytes } from 'node:crypto';
import { rsaKeyPair } from './fake-alipay.js';
import {
  deliver,
  listen,
  type OpenedPayment,
  readBody,
  type SignedCallback,
  sendJson,
  sendPayPage,
} from './fake-gateway-server.js';

// WeChat Pay API v3 as a real HTTP server, with its own platform key pair: `POST
// /v3/pay/transactions/native` checks the merchant's WECHATPAY2-SHA256-RSA2048 Authorization with
// the merchant's public key and answers `{code_url}` signed with Wechatpay-Timestamp/-Nonce/
// -Signature/-Serial headers. "Scanning" the code (GET /scan?code_url=...) shows the checkout page;
// paying posts the TRANSACTION.SUCCESS notice: the transaction sealed with AES-256-GCM under the
// APIv3 key, the whole body signed with the platform's private key.

export interface FakeWechatPay {
  url: string;
  /** The platform's public key (PEM), for the gateway's settings. */
  platformPublicKey: string;
  opened: Map<string, OpenedPayment>;
  notice(
    tradeNo: string,
    override?: { total?: number; timestamp?: number; signWith?: string },
  ): SignedCallback;
  /** The checkout page a phone would open for a code_url. */
  scanUrl(codeUrl: string): string;
  pay(tradeNo: string): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

const PLATFORM_SERIAL = 'PUB_KEY_ID_0000000000000000000000000001';

export async function startFakeWechatPay(opts: {
  mchId: string;
  appId: string;
  apiV3Key: string;
  merchantPublicKey: string;
  merchantSerial: string;
  port?: number;
}): Promise<FakeWechatPay> {
  const keys = rsaKeyPair();
  const opened = new Map<string, OpenedPayment>();
  const codes = new Map<string, string>();
  const signedHeaders = (body: string, timestamp = Math.floor(Date.now() / 1000), key = keys.privateKey) => {
    const nonce = randomBytes(16).toString('hex');
    const signature = createSign('RSA-SHA256')
      .update(`${timestamp}\n${nonce}\n${body}\n`)
      .sign(key, 'base64');
    return {
      'wechatpay-timestamp': String(timestamp),
      'wechatpay-nonce': nonce,
      'wechatpay-signature': signature,
      'wechatpay-serial': PLATFORM_SERIAL,
    };
  };
  const notice = (
    tradeNo: string,
    override: { total?: number; timestamp?: number; signWith?: string } = {},
  ): SignedCallback => {
    const p = opened.get(tradeNo);
    if (!p) throw new Error(`no payment for ${tradeNo}`);
    const tx = JSON.stringify({
      mchid: opts.mchId,
      appid: opts.appId,
      out_trade_no: tradeNo,
      transaction_id: p.gatewayNo,
      trade_type: 'NATIVE',
      trade_state: 'SUCCESS',
      trade_state_desc: '支付成功',
      success_time: new Date().toISOString(),
      payer: { openid: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o' },
      amount: {
        total: override.total ?? p.cents,
        payer_total: p.cents,
        currency: 'CNY',
        payer_currency: 'CNY',
      },
    });
    const nonce = randomBytes(6).toString('hex');
    const cipher = createCipheriv(
      'aes-256-gcm',
      Buffer.from(opts.apiV3Key, 'utf8'),
      Buffer.from(nonce, 'utf8'),
    );
    cipher.setAAD(Buffer.from('transaction', 'utf8'));
    const sealed = Buffer.concat([cipher.update(tx, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    const body = JSON.stringify({
      id: randomBytes(16).toString('hex'),
      create_time: new Date().toISOString(),
      resource_type: 'encrypt-resource',
      event_type: 'TRANSACTION.SUCCESS',
      summary: '支付成功',
      resource: {
        original_type: 'transaction',
        algorithm: 'AEAD_AES_256_GCM',
        ciphertext: sealed.toString('base64'),
        associated_data: 'transaction',
        nonce,
      },
    });
    return {
      method: 'POST',
      url: p.notifyUrl,
      headers: {
        'content-type': 'application/json',
        ...signedHeaders(body, override.timestamp, override.signWith),
      },
      body,
    };
  };
  const pay = (tradeNo: string) => deliver(notice(tradeNo));
  const merchantSigned = (auth: string, method: string, path: string, body: string): boolean => {
    const m = /^WECHATPAY2-SHA256-RSA2048 (.*)$/.exec(auth);
    if (!m) return false;
    const parts = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (parts.mchid !== opts.mchId || parts.serial_no !== opts.merchantSerial) return false;
    return createVerify('RSA-SHA256')
      .update(`${method}\n${path}\n${parts.timestamp}\n${parts.nonce_str}\n${body}\n`)
      .verify(opts.merchantPublicKey, parts.signature ?? '', 'base64');
  };
  const server = await listen(async (req, res, url) => {
    if (req.method === 'POST' && url.pathname === '/v3/pay/transactions/native') {
      const body = await readBody(req);
      if (!merchantSigned(req.headers.authorization ?? '', 'POST', url.pathname, body)) {
        const text = JSON.stringify({ code: 'SIGN_ERROR', message: '签名错误' });
        return sendJson(res, 401, text, signedHeaders(text));
      }
      const order = JSON.parse(body) as {
        out_trade_no: string;
        notify_url: string;
        amount: { total: number };
      };
      const pr = randomBytes(8).toString('hex');
      const codeUrl = `weixin://wxpay/bizpayurl?pr=${pr}`;
      opened.set(order.out_trade_no, {
        tradeNo: order.out_trade_no,
        notifyUrl: order.notify_url,
        returnUrl: '',
        cents: order.amount.total,
        currency: 'CNY',
        gatewayNo: `4200${Date.now()}${randomBytes(3).toString('hex')}`,
      });
      codes.set(codeUrl, order.out_trade_no);
      const text = JSON.stringify({ code_url: codeUrl });
      return sendJson(res, 200, text, signedHeaders(text));
    }
    if (url.pathname === '/scan') {
      const tradeNo = codes.get(url.searchParams.get('code_url') ?? '');
      const p = tradeNo ? opened.get(tradeNo) : undefined;
      if (p && req.method === 'GET')
        return sendPayPage(res, 'WeChat Pay (test, scanned)', p, url.pathname + url.search);
      if (p && req.method === 'POST') {
        const r = await pay(p.tradeNo);
        res
          .writeHead(200, { 'content-type': 'text/plain' })
          .end(r.status < 300 ? 'paid' : `merchant answered ${r.status}`);
        return;
      }
    }
    res.writeHead(404).end('not found');
  }, opts.port);
  return {
    url: server.url,
    platformPublicKey: keys.publicKey,
    opened,
    notice,
    scanUrl: (codeUrl) => `${server.url}/scan?code_url=${encodeURIComponent(codeUrl)}`,
    pay,
    close: server.close,
  };
}

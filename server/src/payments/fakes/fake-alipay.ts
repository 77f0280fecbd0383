import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { alipaySignText, rsa2Sign, rsa2Verify } from '../gateways/alipay.js';
import {
  deliver,
  listen,
  type OpenedPayment,
  readBody,
  type SignedCallback,
  sendJson,
  sendPayPage,
} from './fake-gateway-server.js';

// Alipay's open platform gateway (`/gateway.do`) as a real HTTP server, with its own RSA key pair
// (its public key is what the merchant configures). alipay.trade.page.pay (GET with the signed
// fields) shows the checkout page; alipay.trade.precreate (POST) answers a signed
// `alipay_trade_precreate_response` whose qr_code opens that page ("scanning"). Every request's
// RSA2 signature is checked with the app's public key. Paying posts the asynchronous notice, a form
// signed with Alipay's private key, to notify_url.

export interface FakeAlipay {
  url: string;
  /** Alipay's public key (PEM), for the gateway's settings. */
  alipayPublicKey: string;
  opened: Map<string, OpenedPayment>;
  notice(tradeNo: string, override?: { total_amount?: string; signWith?: string }): SignedCallback;
  pay(tradeNo: string): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

export function rsaKeyPair(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

export async function startFakeAlipay(opts: {
  appId: string;
  appPublicKey: string;
  port?: number;
}): Promise<FakeAlipay> {
  const keys = rsaKeyPair();
  const opened = new Map<string, OpenedPayment>();
  const notice = (
    tradeNo: string,
    override: { total_amount?: string; signWith?: string } = {},
  ): SignedCallback => {
    const p = opened.get(tradeNo);
    if (!p) throw new Error(`no payment for ${tradeNo}`);
    const f: Record<string, string> = {
      notify_time: new Date().toISOString().slice(0, 19).replace('T', ' '),
      notify_type: 'trade_status_sync',
      notify_id: randomBytes(16).toString('hex'),
      app_id: opts.appId,
      charset: 'utf-8',
      version: '1.0',
      trade_no: p.gatewayNo,
      out_trade_no: tradeNo,
      trade_status: 'TRADE_SUCCESS',
      total_amount: override.total_amount ?? (p.cents / 100).toFixed(2),
      receipt_amount: (p.cents / 100).toFixed(2),
      subject: 'top-up',
    };
    f.sign = rsa2Sign(alipaySignText(f, true), override.signWith ?? keys.privateKey);
    f.sign_type = 'RSA2';
    return {
      method: 'POST',
      url: p.notifyUrl,
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body: new URLSearchParams(f).toString(),
    };
  };
  const pay = (tradeNo: string) => deliver(notice(tradeNo));
  const open = (f: Record<string, string>): OpenedPayment => {
    const biz = JSON.parse(f.biz_content ?? '{}') as { out_trade_no: string; total_amount: string };
    const p: OpenedPayment = {
      tradeNo: biz.out_trade_no,
      notifyUrl: f.notify_url ?? '',
      returnUrl: f.return_url ?? '',
      cents: Math.round(Number(biz.total_amount) * 100),
      currency: 'CNY',
      gatewayNo: `2026${Date.now()}${randomBytes(4).toString('hex')}`,
    };
    opened.set(p.tradeNo, p);
    return p;
  };
  const server = await listen(async (req, res, url) => {
    if (url.pathname === '/gateway.do') {
      const f =
        req.method === 'POST'
          ? Object.fromEntries(new URLSearchParams(await readBody(req)))
          : Object.fromEntries(url.searchParams);
      const signed = f.sign && rsa2Verify(alipaySignText(f, false), f.sign, opts.appPublicKey);
      if (!signed || f.app_id !== opts.appId) {
        if (req.method === 'GET') return void res.writeHead(400).end('invalid-signature');
        const body = {
          code: '40002',
          msg: 'Invalid Arguments',
          sub_code: 'isv.invalid-signature',
          sub_msg: '验签出错',
        };
        const text = JSON.stringify(body);
        return sendJson(
          res,
          200,
          `{"alipay_trade_precreate_response":${text},"sign":"${rsa2Sign(text, keys.privateKey)}"}`,
        );
      }
      if (f.method === 'alipay.trade.page.pay' && req.method === 'GET') {
        const p = open(f);
        return sendPayPage(res, 'Alipay (test)', p, `/pay/${encodeURIComponent(p.tradeNo)}`);
      }
      if (f.method === 'alipay.trade.precreate') {
        const p = open(f);
        const text = JSON.stringify({
          code: '10000',
          msg: 'Success',
          out_trade_no: p.tradeNo,
          qr_code: `${server.url}/qr/${encodeURIComponent(p.tradeNo)}`,
        });
        return sendJson(
          res,
          200,
          `{"alipay_trade_precreate_response":${text},"sign":"${rsa2Sign(text, keys.privateKey)}"}`,
        );
      }
      return sendJson(res, 400, { error: 'unsupported method' });
    }
    const qr = /^\/qr\/(.+)$/.exec(url.pathname);
    if (qr && req.method === 'GET') {
      const p = opened.get(decodeURIComponent(qr[1]!));
      if (p) return sendPayPage(res, 'Alipay (test, scanned)', p, `/pay/${encodeURIComponent(p.tradeNo)}`);
    }
    const m = /^\/pay\/(.+)$/.exec(url.pathname);
    const p = m ? opened.get(decodeURIComponent(m[1]!)) : undefined;
    if (req.method === 'POST' && p) {
      await pay(p.tradeNo);
      if (p.returnUrl) res.writeHead(303, { location: p.returnUrl }).end();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('paid');
      return;
    }
    res.writeHead(404).end('not found');
  }, opts.port);
  return { url: server.url, alipayPublicKey: keys.publicKey, opened, notice, pay, close: server.close };
}

import { randomBytes } from 'node:crypto';
import { epaySign } from '../gateways/epay.js';
import {
  deliver,
  listen,
  type OpenedPayment,
  readBody,
  type SignedCallback,
  sendPayPage,
} from './fake-gateway-server.js';

// An EPay (易支付) site as a real HTTP server: the payer's browser posts the merchant's signed form to
// `/submit.php` (pid, type, out_trade_no, notify_url, return_url, name, money, sign, sign_type=MD5);
// the checkout page's Pay button sends the notice as EPay does, a GET to notify_url with pid,
// trade_no, out_trade_no, type, name, money, trade_status=TRADE_SUCCESS and the MD5 sign, then sends
// the browser to return_url with the same fields.

export interface FakeEpay {
  url: string;
  opened: Map<string, OpenedPayment>;
  notice(tradeNo: string, override?: { money?: string; key?: string; unsigned?: boolean }): SignedCallback;
  pay(tradeNo: string): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

export async function startFakeEpay(opts: {
  partnerId: string;
  key: string;
  port?: number;
}): Promise<FakeEpay> {
  const opened = new Map<string, OpenedPayment & { type: string; name: string }>();
  const fields = (tradeNo: string, override: { money?: string; key?: string; unsigned?: boolean } = {}) => {
    const p = opened.get(tradeNo);
    if (!p) throw new Error(`no payment for ${tradeNo}`);
    const f: Record<string, string> = {
      pid: opts.partnerId,
      trade_no: p.gatewayNo,
      out_trade_no: tradeNo,
      type: p.type || 'alipay',
      name: p.name,
      money: override.money ?? (p.cents / 100).toFixed(2),
      trade_status: 'TRADE_SUCCESS',
    };
    if (!override.unsigned) {
      f.sign = epaySign(f, override.key ?? opts.key);
      f.sign_type = 'MD5';
    }
    return f;
  };
  const notice = (tradeNo: string, override = {}): SignedCallback => {
    const p = opened.get(tradeNo);
    if (!p) throw new Error(`no payment for ${tradeNo}`);
    const u = new URL(p.notifyUrl);
    for (const [k, v] of Object.entries(fields(tradeNo, override))) u.searchParams.set(k, v);
    return { method: 'GET', url: u.href, headers: {}, body: '' };
  };
  const pay = (tradeNo: string) => deliver(notice(tradeNo));
  const server = await listen(async (req, res, url) => {
    if (url.pathname === '/submit.php' && (req.method === 'GET' || req.method === 'POST')) {
      // Like EPay, the signed fields come by GET (a link) or POST (a form).
      const f =
        req.method === 'GET'
          ? Object.fromEntries(url.searchParams)
          : Object.fromEntries(new URLSearchParams(await readBody(req)));
      if (f.pid !== opts.partnerId || f.sign !== epaySign(f, opts.key)) {
        res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end('签名校验失败');
        return;
      }
      const tradeNo = f.out_trade_no ?? '';
      const cents = Math.round(Number(f.money) * 100);
      opened.set(tradeNo, {
        tradeNo,
        notifyUrl: f.notify_url ?? '',
        returnUrl: f.return_url ?? '',
        cents,
        currency: 'CNY',
        gatewayNo: `${Date.now()}${randomBytes(4).toString('hex')}`,
        type: f.type ?? '',
        name: f.name ?? '',
      });
      return sendPayPage(
        res,
        'EPay cashier (test)',
        opened.get(tradeNo)!,
        `/pay/${encodeURIComponent(tradeNo)}`,
      );
    }
    const m = /^\/pay\/(.+)$/.exec(url.pathname);
    const p = m ? opened.get(decodeURIComponent(m[1]!)) : undefined;
    if (req.method === 'POST' && p) {
      await pay(p.tradeNo);
      const back = new URL(p.returnUrl);
      for (const [k, v] of Object.entries(fields(p.tradeNo))) back.searchParams.set(k, v);
      res.writeHead(303, { location: back.href }).end();
      return;
    }
    res.writeHead(404).end('not found');
  }, opts.port);
  return { url: server.url, opened, notice, pay, close: server.close };
}

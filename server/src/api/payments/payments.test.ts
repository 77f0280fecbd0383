import { LogType, logEventOf, OrderStatus } from '@switchyard/domain';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAlipay, rsaKeyPair, startFakeAlipay } from '../../payments/fakes/fake-alipay.js';
import { type FakeEpay, startFakeEpay } from '../../payments/fakes/fake-epay.js';
import type { SignedCallback } from '../../payments/fakes/fake-gateway-server.js';
import { type FakeStripe, startFakeStripe } from '../../payments/fakes/fake-stripe.js';
import { type FakeWechatPay, startFakeWechatPay } from '../../payments/fakes/fake-wechat-pay.js';
import { engineTargets } from '../../test/databases.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../../test/test-app.js';

// Online top-up through each gateway type, on every engine, against fakes that speak the gateways'
// wire formats and sign as they do: orders priced with discount, fees and the CNY rate; callbacks
// verified (forged, unsigned, stale and mismatched ones change nothing); a replayed callback and 20
// identical ones at once credit exactly once; gateway secrets sealed and never returned.

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
type Gw = 'stripe' | 'epay' | 'alipay' | 'wxpay';

const STRIPE_KEY = 'sk_test_switchyard';
const STRIPE_WHSEC = 'whsec_switchyardtestsecret';
const EPAY_KEY = 'epay-merchant-key-0123456789';
const WX_V3_KEY = '0123456789abcdef0123456789abcdef';

for (const engine of engineTargets()) {
  describe.skipIf(engine.skipReason !== undefined)(`online top-up on ${engine.engine}`, () => {
    let t: TestApp;
    let root: string;
    let user: string;
    let userId: number;
    let other: string;
    let otherId: number;
    let stripe: FakeStripe;
    let epay: FakeEpay;
    let alipay: FakeAlipay;
    let wechat: FakeWechatPay;
    const uuids = {} as Record<Gw, string>;
    const ids = {} as Record<Gw, number>;
    const app = rsaKeyPair();
    const merchant = rsaKeyPair();

    const call = (cookie: string | undefined, method: Method, url: string, payload?: unknown) => {
      const opts: InjectOptions = { method, url, headers: cookie ? { cookie } : {} };
      if (payload !== undefined) opts.payload = payload as InjectOptions['payload'];
      return t.call(opts);
    };
    /** Sends a gateway's callback through the app exactly as it would arrive. */
    const send = (cb: SignedCallback) => {
      const u = new URL(cb.url);
      return t.call({
        method: cb.method,
        url: u.pathname + u.search,
        headers: cb.headers,
        ...(cb.method === 'POST' ? { payload: cb.body } : {}),
      });
    };
    const balance = async (id: number) => (await t.s.repos.users.byId(id))!.quota;
    const count = async (table: 'orders' | 'logs') =>
      Number(
        (
          await t.s.database.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const order = async (cookie: string, gw: Gw, amount: number) => {
      const res = await call(cookie, 'POST', '/api/user/order', { uuid: uuids[gw], amount });
      if (res.statusCode !== 200) throw new Error(`order failed: ${res.body}`);
      return res.json().data as {
        trade_no: string;
        type: number;
        data: { url: string; method?: string; params?: Record<string, string> };
      };
    };
    const callbackFor = (gw: Gw, tradeNo: string): SignedCallback => {
      if (gw === 'stripe') return stripe.completed(tradeNo);
      if (gw === 'epay') return epay.notice(tradeNo);
      if (gw === 'alipay') return alipay.notice(tradeNo);
      return wechat.notice(tradeNo);
    };
    /** Opens the payment on the fake as the payer's browser would (EPay's and Alipay's signed links). */
    const reachGateway = async (gw: Gw, answer: Awaited<ReturnType<typeof order>>) => {
      if (gw === 'epay') {
        expect((await fetch(answer.data.url)).status).toBe(200);
      } else if (gw === 'alipay' && answer.type === 1) {
        expect((await fetch(answer.data.url)).status).toBe(200);
      }
    };
    const orderRow = (tradeNo: string) =>
      t.s.database.db
        .selectFrom('orders')
        .selectAll()
        .where('trade_no', '=', tradeNo)
        .executeTakeFirstOrThrow();
    const setOption = async (key: string, value: string) => {
      const res = await call(root, 'PUT', '/api/option/', { key, value });
      expect(res.statusCode, res.body).toBe(200);
    };

    beforeAll(async () => {
      t = await createTestApp({ engine });
      root = await t.signIn('root', ROOT_PASSWORD);
      userId = await registerUser(t, 'payer');
      user = await t.signIn('payer', 'password-123');
      otherId = await registerUser(t, 'payer2');
      other = await t.signIn('payer2', 'password-123');
      const notifyUrl = (gw: Gw) => `http://localhost:3000/api/payment/notify/${uuids[gw]}`;
      stripe = await startFakeStripe({
        secretKey: STRIPE_KEY,
        webhookSecret: STRIPE_WHSEC,
        webhookUrl: () => notifyUrl('stripe'),
      });
      epay = await startFakeEpay({ partnerId: '1001', key: EPAY_KEY });
      alipay = await startFakeAlipay({ appId: '2021000000000001', appPublicKey: app.publicKey });
      wechat = await startFakeWechatPay({
        mchId: '1900000001',
        appId: 'wx0000000000000001',
        apiV3Key: WX_V3_KEY,
        merchantPublicKey: merchant.publicKey,
        merchantSerial: '5157F09EFDC096DE15EBE81A47057A7232F1B8E1',
      });
      const gateways: Record<Gw, Record<string, unknown>> = {
        stripe: {
          currency: 'USD',
          config: { secret_key: STRIPE_KEY, webhook_secret: STRIPE_WHSEC, api_base: stripe.url },
        },
        epay: {
          currency: 'CNY',
          fixed_fee: 1,
          percent_fee: 0.1,
          config: { pay_domain: epay.url, partner_id: '1001', key: EPAY_KEY, pay_type: 'alipay' },
        },
        alipay: {
          currency: 'CNY',
          config: {
            app_id: '2021000000000001',
            private_key: app.privateKey,
            public_key: alipay.alipayPublicKey,
            pay_type: 'pagepay',
            api_base: `${alipay.url}/gateway.do`,
          },
        },
        wxpay: {
          currency: 'CNY',
          config: {
            app_id: 'wx0000000000000001',
            mch_id: '1900000001',
            mch_certificate_serial_number: '5157F09EFDC096DE15EBE81A47057A7232F1B8E1',
            mch_apiv3_key: WX_V3_KEY,
            mch_private_key: merchant.privateKey,
            platform_public_key: wechat.platformPublicKey,
            api_base: wechat.url,
          },
        },
      };
      for (const [gw, body] of Object.entries(gateways) as [Gw, Record<string, unknown>][]) {
        const res = await call(root, 'POST', '/api/payment/', {
          type: gw,
          name: `Pay ${gw}`,
          icon: `/icons/${gw}.svg`,
          ...body,
        });
        expect(res.statusCode, res.body).toBe(200);
        uuids[gw] = res.json().data.uuid;
        ids[gw] = res.json().data.id;
      }
      await setOption('RechargeDiscount', '{"100": 0.9}');
      await setOption('PaymentUSDRate', '7');
    });
    afterAll(async () => {
      await Promise.all([stripe?.close(), epay?.close(), alipay?.close(), wechat?.close()]);
      await t?.close();
    });

    it('stores gateway settings sealed and never returns a secret', async () => {
      const list = await call(root, 'GET', '/api/payment/?size=100');
      expect(list.statusCode).toBe(200);
      for (const secret of [STRIPE_KEY, STRIPE_WHSEC, EPAY_KEY, WX_V3_KEY, 'PRIVATE KEY'])
        expect(list.body).not.toContain(secret);
      const one = (await call(root, 'GET', `/api/payment/${ids.stripe}`)).json().data;
      expect(one.config).toEqual({ secret_key: '', webhook_secret: '', api_base: stripe.url });
      expect(one.secrets_set.sort()).toEqual(['secret_key', 'webhook_secret']);
      const rows = await t.s.database.db.selectFrom('payments').select('config_sealed').execute();
      for (const r of rows)
        for (const secret of [STRIPE_KEY, EPAY_KEY, WX_V3_KEY, 'PRIVATE'])
          expect(r.config_sealed).not.toContain(secret);
      // An edit that leaves a secret empty keeps it.
      const edit = await call(root, 'PUT', '/api/payment/', {
        id: ids.stripe,
        type: 'stripe',
        name: 'Card',
        icon: '/icons/stripe.svg',
        currency: 'USD',
        sort: 2,
        config: { secret_key: '', webhook_secret: '', api_base: stripe.url },
      });
      expect(edit.statusCode, edit.body).toBe(200);
      expect(edit.json().data.secrets_set.sort()).toEqual(['secret_key', 'webhook_secret']);
      // Users see enabled gateways with only the fields the form needs.
      const mine = (await call(user, 'GET', '/api/user/payment')).json().data as Record<string, unknown>[];
      expect(mine.map((g) => g.uuid).sort()).toEqual(Object.values(uuids).sort());
      expect(Object.keys(mine[0]!).sort()).toEqual([
        'currency',
        'fixed_fee',
        'icon',
        'name',
        'percent_fee',
        'sort',
        'type',
        'uuid',
      ]);
    });

    it('refuses invalid gateways with 400 and writes nothing', async () => {
      const before = await t.s.database.db
        .selectFrom('payments')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      const base = {
        type: 'epay',
        name: 'x',
        icon: '/i.svg',
        currency: 'CNY',
        config: { pay_domain: epay.url, partner_id: '1', key: 'k' },
      };
      const cases: Record<string, unknown>[] = [
        { ...base, icon: '' },
        { ...base, currency: 'EUR' },
        { ...base, fixed_fee: -1 },
        { ...base, percent_fee: -0.1 },
        { ...base, sort: -1 },
        { ...base, config: { ...base.config, key: '' } },
        { ...base, config: { ...base.config, pay_domain: 'ftp://x' } },
        { ...base, config: { ...base.config, secret_key: 'x' } },
        { ...base, type: 'alipay', currency: 'USD', config: {} },
        {
          ...base,
          type: 'wxpay',
          config: {
            app_id: 'a',
            mch_id: 'm',
            mch_certificate_serial_number: 's',
            mch_apiv3_key: 'short',
            mch_private_key: 'nope',
            platform_public_key: 'nope',
          },
        },
        { ...base, type: 'bitcoin' },
      ];
      for (const body of cases) {
        const res = await call(root, 'POST', '/api/payment/', body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
      }
      const after = await t.s.database.db
        .selectFrom('payments')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));
      expect((await call(user, 'POST', '/api/payment/', base)).statusCode).toBe(403);
    });

    it('refuses amounts outside the rules and prices an order with discount, fees and the CNY rate', async () => {
      const orders = await count('orders');
      for (const amount of [0, -5, 1.5, 1_000_001]) {
        const res = await call(user, 'POST', '/api/user/order', { uuid: uuids.epay, amount });
        expect(res.statusCode, String(amount)).toBe(400);
      }
      await setOption('PaymentMinAmount', '10');
      expect((await call(user, 'POST', '/api/user/order', { uuid: uuids.epay, amount: 9 })).statusCode).toBe(
        400,
      );
      await setOption('PaymentMinAmount', '1');
      expect((await call(user, 'POST', '/api/user/order', { uuid: 'nope', amount: 10 })).statusCode).toBe(
        404,
      );
      expect(await count('orders')).toBe(orders);
      // 100 USD at 0.9 = 90, fee 1 + 9 = 10, total 100 USD = 700 CNY; saved 10 USD = 70 CNY.
      const answer = await order(user, 'epay', 100);
      expect(answer.type).toBe(1);
      expect(answer.data.method).toBe('GET');
      expect(new URL(answer.data.url).searchParams.get('money')).toBe('700.00');
      const row = await orderRow(answer.trade_no);
      expect(row).toMatchObject({
        amount: 100,
        order_amount: 700,
        order_currency: 'CNY',
        fee: 70,
        discount: 70,
        status: OrderStatus.Pending,
      });
      expect(Number(row.quota)).toBe(100 * t.s.options.current.QuotaPerUnit);
    });

    for (const gw of ['stripe', 'epay', 'alipay', 'wxpay'] as const) {
      it(`${gw}: a paid callback credits once; a replay and 20 identical ones at once credit nothing more`, async () => {
        const answer = await order(user, gw, 3);
        await reachGateway(gw, answer);
        expect(answer.type).toBe(gw === 'wxpay' ? 2 : 1);
        const before = await balance(userId);
        const logs = await count('logs');
        const cb = callbackFor(gw, answer.trade_no);
        const first = await send(cb);
        expect(first.statusCode).toBeLessThan(300);
        if (gw === 'epay' || gw === 'alipay') expect(first.body).toBe('success');
        const quota = 3 * t.s.options.current.QuotaPerUnit;
        expect(await balance(userId)).toBe(before + quota);
        const row = await orderRow(answer.trade_no);
        expect(row.status).toBe(OrderStatus.Success);
        expect(row.gateway_no).not.toBe('');
        const log = await t.s.database.db
          .selectFrom('logs')
          .selectAll()
          .where('user_id', '=', userId)
          .orderBy('id', 'desc')
          .executeTakeFirstOrThrow();
        expect(log).toMatchObject({ type: LogType.Topup, quota });
        expect(log.content).toContain(answer.trade_no);
        expect(logEventOf(JSON.parse(log.metadata))).toMatchObject({
          kind: 'topup',
          trade_no: answer.trade_no,
        });
        const status = (await call(user, 'GET', `/api/user/order/status?trade_no=${answer.trade_no}`)).json()
          .data;
        expect(status.status).toBe(OrderStatus.Success);
        // The same callback again, then 20 copies at once.
        expect((await send(cb)).statusCode).toBeLessThan(300);
        const all = await Promise.all(Array.from({ length: 20 }, () => send(cb)));
        expect(all.every((r) => r.statusCode < 300)).toBe(true);
        expect(await balance(userId)).toBe(before + quota);
        expect(await count('logs')).toBe(logs + 1);

        // 20 identical callbacks for a fresh order, all at once: exactly one credit.
        const fresh = await order(other, gw, 2);
        await reachGateway(gw, fresh);
        const otherBefore = await balance(otherId);
        const freshCb = callbackFor(gw, fresh.trade_no);
        const raced = await Promise.all(Array.from({ length: 20 }, () => send(freshCb)));
        expect(raced.map((r) => r.statusCode).filter((c) => c >= 300)).toEqual([]);
        expect(await balance(otherId)).toBe(otherBefore + 2 * t.s.options.current.QuotaPerUnit);
        expect(await count('logs')).toBe(logs + 2);
      });
    }

    it('refuses forged, unsigned, stale and mismatched callbacks and writes nothing', async () => {
      const stripeOrder = await order(user, 'stripe', 4);
      const epayOrder = await order(user, 'epay', 4);
      await reachGateway('epay', epayOrder);
      const alipayOrder = await order(user, 'alipay', 4);
      await reachGateway('alipay', alipayOrder);
      const wxOrder = await order(user, 'wxpay', 4);
      const before = await balance(userId);
      const logs = await count('logs');
      const good = stripe.completed(stripeOrder.trade_no);
      const forgedStripe = {
        ...good,
        headers: {
          ...good.headers,
          'stripe-signature': good.headers['stripe-signature']!.replace(
            /v1=([0-9a-f])/,
            (_, c) => `v1=${c === '0' ? '1' : '0'}`,
          ),
        },
      };
      const other = rsaKeyPair();
      const attempts: [SignedCallback, number][] = [
        [forgedStripe, 400],
        [{ ...good, headers: { 'content-type': 'application/json' } }, 400],
        // The body changed after signing (a higher amount claimed).
        [{ ...good, body: good.body.replace(/"amount_total":\d+/, '"amount_total":999999') }, 400],
        [wechat.notice(wxOrder.trade_no, { signWith: other.privateKey }), 400],
        [wechat.notice(wxOrder.trade_no, { timestamp: Math.floor(Date.now() / 1000) - 3600 }), 400],
      ];
      for (const [cb, status] of attempts) expect((await send(cb)).statusCode).toBe(status);
      expect((await send(epay.notice(epayOrder.trade_no, { key: 'guessed' }))).body).toBe('fail');
      expect((await send(epay.notice(epayOrder.trade_no, { unsigned: true }))).body).toBe('fail');
      expect((await send(alipay.notice(alipayOrder.trade_no, { signWith: other.privateKey }))).body).toBe(
        'failure',
      );
      // Correctly signed, but for another amount or currency than the order's.
      expect((await send(stripe.completed(stripeOrder.trade_no, { cents: 1 }))).statusCode).toBe(400);
      expect((await send(stripe.completed(stripeOrder.trade_no, { currency: 'CNY' }))).statusCode).toBe(400);
      expect((await send(epay.notice(epayOrder.trade_no, { money: '0.01' }))).body).toBe('fail');
      expect((await send(alipay.notice(alipayOrder.trade_no, { total_amount: '0.01' }))).body).toBe(
        'failure',
      );
      expect((await send(wechat.notice(wxOrder.trade_no, { total: 1 }))).statusCode).toBe(400);
      // A callback naming another gateway's uuid is checked with that gateway's keys.
      const cross = stripe.completed(stripeOrder.trade_no);
      expect((await send({ ...cross, url: cross.url.replace(uuids.stripe, uuids.epay) })).body).toBe('fail');
      expect(await balance(userId)).toBe(before);
      expect(await count('logs')).toBe(logs);
      for (const o of [stripeOrder, epayOrder, alipayOrder, wxOrder])
        expect((await orderRow(o.trade_no)).status).toBe(OrderStatus.Pending);
    });

    it('caps pending orders, closes only the caller’s stale ones, and hides other users’ orders', async () => {
      // Start from no pending orders for either user.
      await t.s.database.db
        .updateTable('orders')
        .set({ status: OrderStatus.Closed })
        .where('status', '=', OrderStatus.Pending)
        .execute();
      const mine = [];
      for (let i = 0; i < 5; i++) mine.push(await order(user, 'stripe', 1));
      expect(
        (await call(user, 'POST', '/api/user/order', { uuid: uuids.stripe, amount: 1 })).statusCode,
      ).toBe(409);
      const theirs = await order(other, 'stripe', 1);
      // Age every pending order past three hours; the caller's next order closes only the caller's.
      await t.s.database.db
        .updateTable('orders')
        .set({ created_at: 1 })
        .where('status', '=', OrderStatus.Pending)
        .execute();
      const fresh = await order(user, 'stripe', 1);
      for (const o of mine) expect((await orderRow(o.trade_no)).status).toBe(OrderStatus.Closed);
      expect((await orderRow(theirs.trade_no)).status).toBe(OrderStatus.Pending);
      expect((await orderRow(fresh.trade_no)).status).toBe(OrderStatus.Pending);
      expect((await call(user, 'GET', `/api/user/order/status?trade_no=${theirs.trade_no}`)).statusCode).toBe(
        404,
      );
      // A payment that arrives for an order closed as stale is still credited: the money was taken.
      const before = await balance(userId);
      expect((await send(stripe.completed(mine[0]!.trade_no))).statusCode).toBe(200);
      expect(await balance(userId)).toBe(before + t.s.options.current.QuotaPerUnit);
    });

    it('lists orders for administrators with filters', async () => {
      const res = await call(
        root,
        'GET',
        `/api/payment/order?user_id=${otherId}&status=success&gateway_id=${ids.epay}`,
      );
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json().data;
      expect(page.total_count).toBe(1);
      expect(page.data[0]).toMatchObject({
        user_id: otherId,
        status: 'success',
        gateway_id: ids.epay,
        gateway_name: 'Pay epay',
      });
      expect((await call(user, 'GET', '/api/payment/order')).statusCode).toBe(403);
      expect((await call(root, 'GET', '/api/payment/order?order=-amount')).statusCode).toBe(400);
    });

    it('alipay facepay: a QR code from the signed precreate answer, paid by its notice', async () => {
      const gw = (await call(root, 'GET', `/api/payment/${ids.alipay}`)).json().data;
      const res = await call(root, 'PUT', '/api/payment/', {
        id: ids.alipay,
        type: 'alipay',
        name: gw.name,
        icon: gw.icon,
        currency: 'CNY',
        config: { ...gw.config, pay_type: 'facepay' },
      });
      expect(res.statusCode, res.body).toBe(200);
      const answer = await order(user, 'alipay', 5);
      expect(answer.type).toBe(2);
      expect(answer.data.url).toBe(`${alipay.url}/qr/${answer.trade_no}`);
      const before = await balance(userId);
      expect((await send(alipay.notice(answer.trade_no))).body).toBe('success');
      expect(await balance(userId)).toBe(before + 5 * t.s.options.current.QuotaPerUnit);
    });

    it('marks an order failed when the gateway refuses to open it', async () => {
      const res = await call(root, 'PUT', '/api/payment/', {
        id: ids.stripe,
        type: 'stripe',
        name: 'Card',
        icon: '/icons/stripe.svg',
        currency: 'USD',
        config: { secret_key: 'sk_test_wrong', webhook_secret: '', api_base: stripe.url },
      });
      expect(res.statusCode).toBe(200);
      const refused = await call(user, 'POST', '/api/user/order', { uuid: uuids.stripe, amount: 1 });
      expect(refused.statusCode).toBe(502);
      const last = await t.s.database.db
        .selectFrom('orders')
        .selectAll()
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(last.status).toBe(OrderStatus.Failed);
    });
  });
}

import { randomBytes } from 'node:crypto';
import {
  ErrorCode,
  OrderStatus,
  orderInput,
  type PaymentType,
  priceOrder,
  topupAmount,
} from '@switchyard/domain';
import { z } from 'zod';
import { toNumber } from '../../db/dialect.js';
import { ApiError } from '../../http/api-error.js';
import type { RouteContext } from '../../http/route.js';
import { type GatewayDriver, GatewayError, type NotifyRequest } from '../../payments/gateway.js';
import { openConfig } from '../../payments/gateway-config.js';
import type { Services } from '../../services.js';
import { USERS_TOPIC } from '../users/users.js';
import { parseBody } from '../validation.js';

// Online top-up (users) and the gateways' callbacks (anyone: the signature is the credential).

/** A user holds at most this many pending orders; more would only be abandoned checkouts. */
export const PENDING_ORDERS_MAX = 5;
/** A pending order older than this is closed when its user opens a new one. */
export const STALE_ORDER_SECONDS = 3 * 3600;

export const orderBody = orderInput;
export const orderStatusQuery = z.object({
  trade_no: z.string({ error: 'trade_no is required' }).trim().min(1, 'trade_no is required').max(64),
});

function driverOf(s: Services, type: string): GatewayDriver {
  const driver = s.paymentDrivers[type as PaymentType];
  if (!driver) throw new ApiError(500, ErrorCode.internal, `No driver for payment type ${type}`);
  return driver;
}

/** GET /api/user/payment: the enabled gateways, with only what the top-up form shows. */
export async function listUserPayments({ s }: RouteContext<unknown, unknown, unknown>) {
  return (await s.repos.payments.enabled()).map((g) => ({
    uuid: g.uuid,
    name: g.name,
    icon: g.icon,
    type: g.type,
    fixed_fee: g.fixed_fee,
    percent_fee: g.percent_fee,
    currency: g.currency,
    sort: g.sort,
  }));
}

/** A trade number: time, then randomness, so it sorts by creation and cannot be guessed. */
function tradeNo(nowMs: number): string {
  return `SY${nowMs}${randomBytes(6).toString('hex').toUpperCase()}`;
}

/**
 * POST /api/user/order: prices the amount (discount, fees, CNY rate), stores a pending order and
 * asks the gateway where to pay. The answer is a page to open (type 1) or a QR payload (type 2).
 */
export async function createOrder({
  s,
  caller,
  ip,
  body,
  req,
}: RouteContext<z.infer<typeof orderInput>, unknown, unknown>) {
  const user = caller!.user;
  const opts = s.options.current;
  const amount = parseBody(topupAmount(opts.PaymentMinAmount), body.amount);
  const gateway = (await s.repos.payments.enabled()).find((g) => g.uuid === body.uuid);
  if (!gateway) throw ApiError.notFound('This payment method is not available');
  const now = s.clock.nowSeconds();
  await s.repos.orders.closeStale(user.id, now - STALE_ORDER_SECONDS, now);
  if ((await s.repos.orders.pendingCount(user.id)) >= PENDING_ORDERS_MAX)
    throw ApiError.conflict(
      `You have ${PENDING_ORDERS_MAX} unpaid orders; pay or wait for them to expire before opening another`,
    );
  const price = priceOrder(amount, gateway, opts.RechargeDiscount, opts.PaymentUSDRate);
  const trade = tradeNo(s.clock.nowMs());
  const id = await s.repos.orders.insert({
    user_id: user.id,
    gateway_id: gateway.id,
    trade_no: trade,
    gateway_no: '',
    amount,
    order_amount: price.total,
    order_currency: price.currency,
    quota: Math.round(amount * opts.QuotaPerUnit),
    fee: price.fee,
    discount: price.discount,
    status: OrderStatus.Pending,
    created_at: now,
    updated_at: now,
  });
  const server = opts.ServerAddress.replace(/\/+$/, '');
  const notifyBase = (gateway.notify_domain || server).replace(/\/+$/, '');
  try {
    const pay = await driverOf(s, gateway.type).open(openConfig(s.secretBox, gateway.config_sealed), {
      tradeNo: trade,
      total: price.total,
      currency: price.currency,
      subject: `${opts.SystemName} top-up ${amount} USD`,
      notifyUrl: `${notifyBase}/api/payment/notify/${gateway.uuid}`,
      // Named as EPay and Alipay name it on their return, where `trade_no` is their own number.
      returnUrl: `${server}/panel/topup?out_trade_no=${trade}`,
      clientIp: ip,
    });
    if (pay.gatewayNo) await s.repos.orders.setGatewayNo(id, pay.gatewayNo, now);
    return { trade_no: trade, type: pay.type, data: pay.data };
  } catch (err) {
    await s.repos.orders.markFailed(id, s.clock.nowSeconds());
    if (err instanceof GatewayError) {
      req.log.warn(
        { gateway: gateway.id, trade_no: trade, err: err.message },
        'payment gateway refused an order',
      );
      throw new ApiError(
        502,
        ErrorCode.upstreamError,
        'The payment gateway could not open the payment; try again or choose another method',
      );
    }
    throw err;
  }
}

/** GET /api/user/order/status?trade_no=: success only once the caller's order is paid. */
export async function orderStatus({
  s,
  caller,
  query,
}: RouteContext<unknown, { trade_no: string }, unknown>) {
  const order = await s.repos.orders.byTradeNo(query.trade_no);
  if (!order || toNumber(order.user_id) !== caller!.user.id) throw ApiError.notFound('Order not found');
  return { trade_no: order.trade_no, status: order.status, quota: toNumber(order.quota) };
}

/**
 * ANY /api/payment/notify/:uuid: a gateway's callback. Unsigned or forged ones are refused and
 * logged and write nothing; a paid one settles its order once (see orders.settle) and gets the
 * answer its gateway expects.
 */
export async function paymentNotify({ s, req, reply, ip }: RouteContext<unknown, unknown, { uuid: string }>) {
  const uuid = (req.params as { uuid: string }).uuid;
  const gateway = await s.repos.payments.byUuid(uuid);
  const send = (r: { status: number; contentType: string; body: string }) =>
    reply.code(r.status).header('content-type', r.contentType).send(r.body);
  if (!gateway) {
    req.log.warn({ uuid, ip }, 'payment callback for an unknown gateway refused');
    return reply.code(404).header('content-type', 'text/plain').send('unknown gateway');
  }
  const driver = driverOf(s, gateway.type);
  const notify: NotifyRequest = {
    method: req.method,
    headers: req.headers,
    query: req.query as Record<string, string>,
    rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
  };
  let config: Record<string, string>;
  try {
    config = openConfig(s.secretBox, gateway.config_sealed);
  } catch {
    req.log.error({ gateway: gateway.id }, 'payment gateway settings cannot be opened with this SECRET_KEY');
    return send(driver.nack('server misconfigured'));
  }
  const result = await driver.verify(config, notify, s.clock.nowSeconds());
  if (result.kind === 'refused') {
    req.log.warn(
      { gateway: gateway.id, ip, why: result.why },
      'payment callback refused: not signed by the gateway',
    );
    return send(driver.nack('signature verification failed'));
  }
  if (result.kind === 'ignored') return send(driver.ack());
  const payment = { ...result.payment, currency: result.payment.currency || gateway.currency };
  const settled = await s.repos.orders.settle(
    result.tradeNo,
    gateway.id,
    payment,
    { gatewayName: gateway.name, ip },
    s.clock.nowSeconds(),
  );
  switch (settled.outcome) {
    case 'credited':
      req.log.info(
        { gateway: gateway.id, trade_no: result.tradeNo, quota: toNumber(settled.order.quota) },
        'order paid',
      );
      await s.bus.publish(USERS_TOPIC);
      return send(driver.ack());
    case 'already':
      return send(driver.ack());
    case 'unknown':
      req.log.warn(
        { gateway: gateway.id, trade_no: result.tradeNo },
        'signed payment callback for an unknown order',
      );
      return send(driver.nack('unknown order'));
    case 'mismatch':
      req.log.error(
        { gateway: gateway.id, trade_no: result.tradeNo, expected: settled.expected, got: settled.got },
        'signed payment callback with another amount or currency than its order: not credited',
      );
      return send(driver.nack('amount mismatch'));
    case 'not_payable':
      req.log.error(
        { gateway: gateway.id, trade_no: result.tradeNo, status: settled.order.status },
        'payment for an order that cannot be paid',
      );
      return send(driver.nack('order not payable'));
  }
}

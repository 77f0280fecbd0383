import { randomUUID } from 'node:crypto';
import { ErrorCode, type PaymentInput, type PaymentType, paymentInput } from '@switchyard/domain';
import { z } from 'zod';
import { toNumber } from '../../db/dialect.js';
import {
  ORDER_ORDERABLE,
  type OrderFilter,
  type OrderOrderColumn,
  type OrderRow,
} from '../../db/queries/orders.js';
import {
  PAYMENT_ORDERABLE,
  type PaymentFilter,
  type PaymentOrderColumn,
  type PaymentRow,
} from '../../db/queries/payments.js';
import { ApiError } from '../../http/api-error.js';
import { type PageRequest, pageQuery, pageResult } from '../../http/pagination.js';
import type { RouteContext } from '../../http/route.js';
import {
  configProblems,
  mergeConfig,
  openConfig,
  presentConfig,
  sealConfig,
} from '../../payments/gateway-config.js';
import type { Services } from '../../services.js';
import { audit } from '../audit.js';
import { type IdParams, optionalInt, optionalText } from '../validation.js';

// Payment gateways and the order log (administrators). A gateway's configuration is sealed at rest
// and its secrets never leave: the list shows which are set, an edit that leaves one empty keeps it.

export const paymentListQuery = pageQuery(PAYMENT_ORDERABLE).and(
  z.object({ type: optionalText, name: optionalText, uuid: optionalText, currency: optionalText }),
);
type PaymentListQuery = PageRequest<PaymentOrderColumn> & {
  type?: string | undefined;
  name?: string | undefined;
  uuid?: string | undefined;
  currency?: string | undefined;
};

export const orderListQuery = pageQuery(ORDER_ORDERABLE).and(
  z.object({
    user_id: optionalInt,
    gateway_id: optionalInt,
    trade_no: optionalText,
    gateway_no: optionalText,
    status: optionalText,
    start_timestamp: optionalInt,
    end_timestamp: optionalInt,
  }),
);
type OrderListQuery = PageRequest<OrderOrderColumn> & {
  user_id?: number | undefined;
  gateway_id?: number | undefined;
  trade_no?: string | undefined;
  gateway_no?: string | undefined;
  status?: string | undefined;
  start_timestamp?: number | undefined;
  end_timestamp?: number | undefined;
};

export const paymentBody = paymentInput;

function configOf(s: Services, row: PaymentRow): Record<string, string> {
  try {
    return openConfig(s.secretBox, row.config_sealed);
  } catch {
    throw new ApiError(
      500,
      ErrorCode.internal,
      `The settings of gateway #${row.id} cannot be opened with this server's SECRET_KEY`,
    );
  }
}

export function presentPayment(s: Services, row: PaymentRow) {
  return {
    id: row.id,
    uuid: row.uuid,
    type: row.type,
    name: row.name,
    icon: row.icon,
    notify_domain: row.notify_domain,
    fixed_fee: row.fixed_fee,
    percent_fee: row.percent_fee,
    currency: row.currency,
    sort: row.sort,
    enable: toNumber(row.enable) === 1,
    created_at: toNumber(row.created_at),
    ...presentConfig(row.type, configOf(s, row)),
  };
}

export function presentOrder(row: OrderRow, gatewayName?: string) {
  return {
    id: row.id,
    user_id: toNumber(row.user_id),
    gateway_id: toNumber(row.gateway_id),
    gateway_name: gatewayName ?? '',
    trade_no: row.trade_no,
    gateway_no: row.gateway_no,
    amount: toNumber(row.amount),
    order_amount: row.order_amount,
    order_currency: row.order_currency,
    quota: toNumber(row.quota),
    fee: row.fee,
    discount: row.discount,
    status: row.status,
    created_at: toNumber(row.created_at),
    updated_at: toNumber(row.updated_at),
  };
}

async function payment(s: Services, id: number): Promise<PaymentRow> {
  const row = await s.repos.payments.byId(id);
  if (!row) throw ApiError.notFound('Payment gateway not found');
  return row;
}

function checkedConfig(type: PaymentType, config: Record<string, string>): void {
  const problems = configProblems(type, config);
  if (problems.length > 0)
    throw new ApiError(
      400,
      ErrorCode.invalidRequest,
      `Invalid body: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
      problems,
    );
}

export async function listPayments({ s, query }: RouteContext<unknown, PaymentListQuery, unknown>) {
  const filter: PaymentFilter = {};
  if (query.type) filter.type = query.type;
  if (query.name) filter.name = query.name;
  if (query.uuid) filter.uuid = query.uuid;
  if (query.currency) filter.currency = query.currency;
  const { rows, total } = await s.repos.payments.list(filter, query);
  return pageResult(
    query,
    rows.map((r) => presentPayment(s, r)),
    total,
  );
}

export async function getPayment({ s, params }: RouteContext<unknown, unknown, IdParams>) {
  return presentPayment(s, await payment(s, params.id));
}

/** The columns an administrator's form sets, the same on create and update. */
function gatewayColumns(s: Services, body: PaymentInput, config: Record<string, string>) {
  return {
    name: body.name,
    icon: body.icon,
    notify_domain: body.notify_domain.replace(/\/+$/, ''),
    fixed_fee: body.fixed_fee,
    percent_fee: body.percent_fee,
    currency: body.currency,
    config_sealed: sealConfig(s.secretBox, config),
    sort: body.sort,
    enable: body.enable ? 1 : 0,
  };
}

export async function createPayment({ s, caller, ip, body }: RouteContext<PaymentInput, unknown, unknown>) {
  const config = mergeConfig(body.type, {}, body.config);
  checkedConfig(body.type, config);
  const now = s.clock.nowSeconds();
  const uuid = randomUUID().replaceAll('-', '');
  const id = await s.repos.payments.insert({
    ...gatewayColumns(s, body, config),
    type: body.type,
    uuid,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  });
  await audit(s, caller, ip, 'payment.create', { type: 'payment', id }, { name: body.name, type: body.type });
  return presentPayment(s, await payment(s, id));
}

export async function updatePayment({ s, caller, ip, body }: RouteContext<PaymentInput, unknown, unknown>) {
  if (!body.id)
    throw ApiError.badRequest('Invalid body: id: id is required', [
      { path: 'id', message: 'id is required' },
    ]);
  const row = await payment(s, body.id);
  if (row.type !== body.type)
    throw ApiError.badRequest('Invalid body: type: a gateway keeps its type; create another one', [
      { path: 'type', message: 'a gateway keeps its type' },
    ]);
  const config = mergeConfig(body.type, configOf(s, row), body.config);
  checkedConfig(body.type, config);
  await s.repos.payments.update(row.id, {
    ...gatewayColumns(s, body, config),
    updated_at: s.clock.nowSeconds(),
  });
  await audit(
    s,
    caller,
    ip,
    'payment.update',
    { type: 'payment', id: row.id },
    { name: body.name, enable: body.enable },
  );
  return presentPayment(s, await payment(s, row.id));
}

export async function deletePayment({ s, caller, ip, params }: RouteContext<unknown, unknown, IdParams>) {
  const row = await payment(s, params.id);
  if (!(await s.repos.payments.softDelete(row.id, s.clock.nowSeconds())))
    throw ApiError.notFound('Payment gateway not found');
  await audit(s, caller, ip, 'payment.delete', { type: 'payment', id: row.id }, { name: row.name });
  return null;
}

export async function listOrders({ s, query }: RouteContext<unknown, OrderListQuery, unknown>) {
  const filter: OrderFilter = {};
  if (query.user_id) filter.userId = query.user_id;
  if (query.gateway_id) filter.gatewayId = query.gateway_id;
  if (query.trade_no) filter.tradeNo = query.trade_no;
  if (query.gateway_no) filter.gatewayNo = query.gateway_no;
  if (query.status) filter.status = query.status;
  if (query.start_timestamp) filter.from = query.start_timestamp;
  if (query.end_timestamp) filter.to = query.end_timestamp;
  const { rows, total } = await s.repos.orders.list(filter, query);
  const names = await s.repos.payments.names([...new Set(rows.map((r) => toNumber(r.gateway_id)))]);
  return pageResult(
    query,
    rows.map((r) => presentOrder(r, names.get(toNumber(r.gateway_id)))),
    total,
  );
}

import { useQuery } from '@tanstack/react-query';
import { apiGet, apiPost } from '../../lib/api-client';

/** An enabled payment gateway as GET /api/user/payment lists it. */
export interface Gateway {
  uuid: string;
  name: string;
  icon: string;
  type: string;
  fixed_fee: number;
  percent_fee: number;
  currency: string;
  sort: number;
}

/** POST /api/user/order's answer: a page to open (type 1) or a QR payload (type 2). */
export interface OrderAnswer {
  trade_no: string;
  type: number;
  data: { url: string; method?: string; params?: Record<string, string> };
}

/** The gateways a user may pay with. */
export function useGateways() {
  return useQuery({
    queryKey: ['user', 'payment'],
    // Online payment is optional: a server without gateways (or without the route) means "not set up".
    queryFn: () => apiGet<Gateway[]>('/api/user/payment', { silent: true }).catch(() => [] as Gateway[]),
  });
}

export function placeOrder(body: { uuid: string; amount: number }) {
  return apiPost<OrderAnswer>('/api/user/order', body);
}

/** Polled while the payment is pending; failures are retried by the poll, not announced. */
export function orderStatus(tradeNo: string) {
  return apiGet<{ status: string; quota: number }>('/api/user/order/status', {
    query: { trade_no: tradeNo },
    silent: true,
  });
}

/** Redeems a code; answers the quota it added. */
export function redeemCode(key: string) {
  return apiPost<number>('/api/user/topup', { key });
}

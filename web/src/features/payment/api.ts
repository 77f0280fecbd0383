import type { PaymentType } from '@switchyard/domain';
import { useQuery } from '@tanstack/react-query';
import { type TableControls, useTableQuery } from '../../components/data-table';
import { api, apiGet, apiPost, apiPut } from '../../lib/api-client';

export const GATEWAY_PATH = '/api/payment';
const ORDER_PATH = '/api/payment/order';

/** A payment gateway as the admin API shows it (secrets only named, never sent back). */
export interface GatewayView {
  id: number;
  uuid: string;
  type: PaymentType;
  name: string;
  icon: string;
  notify_domain: string;
  fixed_fee: number;
  percent_fee: number;
  currency: string;
  sort: number;
  enable: boolean;
  created_at: number;
  config: Record<string, string>;
  secrets_set: string[];
}

export interface OrderView {
  id: number;
  user_id: number;
  gateway_id: number;
  gateway_name: string;
  trade_no: string;
  gateway_no: string;
  amount: number;
  order_amount: number;
  order_currency: string;
  quota: number;
  fee: number;
  discount: number;
  status: string;
  created_at: number;
}

export function useOrderPage(controls: TableControls) {
  return useTableQuery<OrderView>(ORDER_PATH, controls);
}

/** Every gateway in the order the top-up screen offers them (a site has a handful). */
export function useGateways() {
  return useQuery({
    queryKey: [GATEWAY_PATH, 'all'],
    queryFn: () => apiGet<{ data: GatewayView[] }>(GATEWAY_PATH, { query: { size: 100, order: 'sort,id' } }),
  });
}

export function saveGateway(body: unknown, existing: boolean) {
  return existing ? apiPut(GATEWAY_PATH, body) : apiPost(GATEWAY_PATH, body);
}

/** Turns a gateway on or off; the API takes the whole gateway, its secrets left as they are. */
export function setGatewayEnabled(g: GatewayView, enable: boolean) {
  return apiPut(GATEWAY_PATH, {
    id: g.id,
    type: g.type,
    name: g.name,
    icon: g.icon,
    notify_domain: g.notify_domain,
    fixed_fee: g.fixed_fee,
    percent_fee: g.percent_fee,
    currency: g.currency,
    sort: g.sort,
    enable,
    config: g.config,
  });
}

export function deleteGateway(id: number) {
  return api('DELETE', `${GATEWAY_PATH}/${id}`);
}

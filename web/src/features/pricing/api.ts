import type { PriceView } from '@switchyard/domain';
import { useQuery } from '@tanstack/react-query';
import { api, apiGet, apiPost, apiPut } from '../../lib/api-client';

export const PRICES_PATH = '/api/prices';

/** A model in the path of /api/prices/single/*: its `/` stay path separators, the rest is escaped. */
export const modelPath = (model: string) => model.split('/').map(encodeURIComponent).join('/');

/** The whole price table (the channel editor reads it too, for the models that have a price). */
export function usePrices() {
  return useQuery({ queryKey: [PRICES_PATH], queryFn: () => apiGet<PriceView[]>(PRICES_PATH) });
}

/** Creates a model's price, or updates the price stored under `original`. */
export function savePrice(price: unknown, original?: string) {
  return original === undefined
    ? apiPost(`${PRICES_PATH}/single`, price)
    : apiPut(`${PRICES_PATH}/single/${modelPath(original)}`, price);
}

/** One price for several models; `original_models` are replaced by `models`. */
export function savePrices(body: { original_models: string[]; models: string[]; price: unknown }) {
  return apiPost(`${PRICES_PATH}/multiple`, body);
}

export function deletePrice(model: string) {
  return api('DELETE', `${PRICES_PATH}/single/${modelPath(model)}`);
}

export function deletePrices(models: string[]) {
  return apiPut(`${PRICES_PATH}/multiple/delete`, { models });
}

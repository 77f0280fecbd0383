import type { CreatedTokenView, TokenView } from '@switchyard/domain';
import { type TableControls, useTableQuery } from '../../components/data-table';
import { api, apiGet, apiPost, apiPut } from '../../lib/api-client';

export const TOKEN_PATH = '/api/token';

export function useTokenPage(controls: TableControls) {
  return useTableQuery<TokenView>(TOKEN_PATH, controls);
}

/** Creates a token: the answer carries its key, shown once. */
export function createToken(body: Record<string, unknown>) {
  return apiPost<CreatedTokenView>(TOKEN_PATH, body);
}

export function updateToken(id: number, body: Record<string, unknown>) {
  return apiPut<TokenView>(TOKEN_PATH, { ...body, id });
}

export function setTokenStatus(v: { id: number; status: number }) {
  return apiPut<TokenView>(TOKEN_PATH, v, { query: { status_only: 1 } });
}

export function deleteToken(id: number) {
  return api<null>('DELETE', `${TOKEN_PATH}/${id}`);
}

/** The full key, fetched only when the user copies it or opens a chat link. */
export function tokenKey(id: number) {
  return apiGet<string>(`${TOKEN_PATH}/${id}/key`);
}

import type { SelfUser } from '@switchyard/domain';
import { useQuery } from '@tanstack/react-query';
import { api, apiGet, apiPost, apiPut } from '../../lib/api-client';
import type { PasskeySummary } from '../auth/api';

export const PASSKEYS_KEY = ['webauthn', 'credentials'] as const;

/** Display name and password; answers the user as now stored. */
export function saveProfile(values: unknown) {
  return apiPut<SelfUser>('/api/user/self', values);
}

/** A new access token for the API; the old one stops working. */
export function generateAccessToken() {
  return apiGet<string>('/api/user/token');
}

export function unbindAccount(type: string) {
  return apiPost('/api/user/unbind', { type });
}

export function bindEmail(email: string, code: string) {
  return apiGet<null>('/api/oauth/email/bind', { query: { email, code } });
}

export function usePasskeys() {
  return useQuery({
    queryKey: PASSKEYS_KEY,
    queryFn: () => apiGet<PasskeySummary[]>('/api/webauthn/credentials'),
  });
}

export function renamePasskey(id: number, alias: string) {
  return apiPut(`/api/webauthn/credentials/${id}`, { alias });
}

export function deletePasskey(id: number) {
  return api('DELETE', `/api/webauthn/credentials/${id}`);
}

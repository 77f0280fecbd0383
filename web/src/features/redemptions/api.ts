import { RedemptionStatus, type RedemptionView } from '@switchyard/domain';
import { type TableControls, useTableQuery } from '../../components/data-table';
import { api, apiGet, apiPost, apiPut } from '../../lib/api-client';

export const REDEMPTION_PATH = '/api/redemption';

export function useRedemptionPage(controls: TableControls) {
  return useTableQuery<RedemptionView>(REDEMPTION_PATH, controls);
}

/** Creates `count` codes and answers their keys, shown once. */
export function createRedemptions(body: unknown) {
  return apiPost<string[]>(REDEMPTION_PATH, body);
}

export function updateRedemption(body: unknown) {
  return apiPut(REDEMPTION_PATH, body);
}

/** Enables a disabled code or disables an unused one, touching nothing else. */
export function toggleRedemption(code: RedemptionView) {
  const status =
    code.status === RedemptionStatus.Enabled ? RedemptionStatus.Disabled : RedemptionStatus.Enabled;
  return apiPut(REDEMPTION_PATH, { id: code.id, status }, { query: { status_only: 1 } });
}

export function redemptionKey(id: number) {
  return apiGet<string>(`${REDEMPTION_PATH}/${id}/key`);
}

export function deleteRedemption(id: number) {
  return api('DELETE', `${REDEMPTION_PATH}/${id}`);
}

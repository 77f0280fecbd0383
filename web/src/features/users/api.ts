import type { UserAdminView } from '@switchyard/domain';
import { type TableControls, useTableQuery } from '../../components/data-table';
import { api, apiPost, apiPut } from '../../lib/api-client';

// The user administration's calls.

export const USER_PATH = '/api/user';

export type UserAction = 'enable' | 'disable' | 'promote' | 'demote';

export function useUserPage(controls: TableControls) {
  return useTableQuery<UserAdminView>(USER_PATH, controls);
}

/** Creates a user (no id) or updates one. */
export function saveUser(body: { id?: number } & Record<string, unknown>, existing: boolean) {
  return existing ? apiPut(USER_PATH, body) : apiPost(USER_PATH, body);
}

export function manageUser({ id, action }: { id: number; action: UserAction }) {
  return apiPost(`${USER_PATH}/manage`, { id, action });
}

export function deleteUser(id: number) {
  return api('DELETE', `${USER_PATH}/${id}`);
}

/** Adds `delta` (negative: takes) to a balance; the caller says why it failed (an overdraft). */
export function changeUserQuota(id: number, delta: number, remark: string) {
  return apiPost(`${USER_PATH}/quota/${id}`, { quota: delta, remark }, { silent: true });
}

import type { UserGroupView } from '@switchyard/domain';
import { type TableControls, useTableQuery } from '../../components/data-table';
import { api, apiPost, apiPut } from '../../lib/api-client';

export const USER_GROUP_PATH = '/api/user_group';
/** A group change also changes the group lists of the token and user screens. */
export const USER_GROUP_QUERIES = [USER_GROUP_PATH, '/api/group', 'user'] as const;

export function useUserGroupPage(controls: TableControls) {
  return useTableQuery<UserGroupView>(USER_GROUP_PATH, controls);
}

export function saveUserGroup(body: unknown, existing: boolean) {
  return existing ? apiPut(USER_GROUP_PATH, body) : apiPost(USER_GROUP_PATH, body);
}

export function setUserGroupEnabled(group: UserGroupView, enable: boolean) {
  return apiPut(`${USER_GROUP_PATH}/enable/${group.id}`, { enable });
}

export function deleteUserGroup(id: number) {
  return api('DELETE', `${USER_GROUP_PATH}/${id}`);
}

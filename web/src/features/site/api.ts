import { useQuery } from '@tanstack/react-query';
import { apiGet } from '../../lib/api-client';

// Shared lookups for the screens that show groups and model owners (tokens, prices).
// Fetched on first use, not at start; an older server without them just yields empty lists.

export interface ModelOwner {
  id: number;
  name: string;
  icon: string;
}

export interface UserGroupSummary {
  id: number;
  symbol: string;
  name: string;
  ratio: number;
  public: boolean;
  api_rate: number;
}

const HOUR = 60 * 60_000;

/** GET /api/model_ownedby: the model-to-owner list. */
export function useModelOwners() {
  return useQuery({
    queryKey: ['model_ownedby'],
    queryFn: () => apiGet<ModelOwner[]>('/api/model_ownedby', { silent: true }).catch(() => []),
    staleTime: HOUR,
  });
}

/** GET /api/user_group_map: groups the signed-in user may choose, keyed by symbol. */
export function useUserGroupMap() {
  return useQuery({
    queryKey: ['user', 'group_map'],
    queryFn: () =>
      apiGet<Record<string, UserGroupSummary>>('/api/user_group_map', { silent: true }).catch(() => ({})),
    staleTime: HOUR,
  });
}

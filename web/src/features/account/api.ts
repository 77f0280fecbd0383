import type { SelfUser } from '@switchyard/domain';
import { useEarlyQuery } from '../../app/query-client';
import { apiGet } from '../../lib/api-client';
import { withBase } from '../../lib/base-path';

export const selfQueryKey = ['user', 'self'] as const;

/** GET /api/user/self: the signed-in user, fresh (role, balance); a 401 here ends a stale session. */
export const selfQuery = {
  queryKey: selfQueryKey,
  queryFn: () => apiGet<SelfUser>('/api/user/self'),
  // The layout and the page ask together on arrival; one answer serves both.
  staleTime: 10_000,
};

export function useSelf() {
  return useEarlyQuery(selfQuery);
}

/** GET /api/user/aff, as the link a friend signs up with. */
export function useInviteLink(): string {
  const { data } = useEarlyQuery({
    queryKey: ['user', 'aff'],
    queryFn: () => apiGet<string>('/api/user/aff'),
    staleTime: Number.POSITIVE_INFINITY,
  });
  return data ? `${window.location.origin}${withBase('/register')}?aff=${encodeURIComponent(data)}` : '';
}

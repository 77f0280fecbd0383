import type { SelfUser } from '@switchyard/domain';
import { useQuery } from '@tanstack/react-query';
import { apiGet } from '../../lib/api-client';

export const selfQueryKey = ['user', 'self'] as const;

/** GET /api/user/self: the signed-in user, fresh (role, balance); a 401 here ends a stale session. */
export function useSelf() {
  return useQuery({
    queryKey: selfQueryKey,
    queryFn: () => apiGet<SelfUser>('/api/user/self'),
    // The layout and the page ask together on arrival; one answer serves both.
    staleTime: 10_000,
  });
}

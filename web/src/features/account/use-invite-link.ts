import { useQuery } from '@tanstack/react-query';
import { apiGet } from '../../lib/api-client';
import { withBase } from '../../lib/base-path';

/** GET /api/user/aff, as the link a friend signs up with. */
export function useInviteLink(): string {
  const { data } = useQuery({
    queryKey: ['user', 'aff'],
    queryFn: () => apiGet<string>('/api/user/aff'),
    staleTime: Number.POSITIVE_INFINITY,
  });
  return data ? `${window.location.origin}${withBase('/register')}?aff=${encodeURIComponent(data)}` : '';
}

import { useQuery } from '@tanstack/react-query';
import { apiGet } from '../../lib/api-client';

/** The site notice (Markdown), read once per visit. */
export function useNoticeText() {
  return useQuery({
    queryKey: ['notice'],
    queryFn: () => apiGet<string>('/api/notice'),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

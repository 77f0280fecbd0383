import type { AvailableModelView } from '@switchyard/domain';
import { useEarlyQuery } from '../../app/query-client';
import { apiGet } from '../../lib/api-client';

/** GET /api/available_model: model -> groups offering it, owner and price (public groups plus the caller's). */
export function useAvailableModels() {
  return useEarlyQuery({
    queryKey: ['available_model'],
    queryFn: () => apiGet<Record<string, AvailableModelView>>('/api/available_model'),
    staleTime: 60_000,
  });
}

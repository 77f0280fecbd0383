import type { Page, TokenView } from '@switchyard/domain';
import { useQuery } from '@tanstack/react-query';
import { apiGet } from '../../lib/api-client';

interface LogRow {
  quota: number;
  created_at: number;
  model_name: string;
}

/** The user's tokens the playground may chat with (the first hundred). */
export function useTokenChoices(enabled: boolean) {
  return useQuery({
    queryKey: ['/api/token', 'playground-choices'],
    queryFn: () => apiGet<Page<TokenView>>('/api/token', { query: { page: 1, size: 100 } }),
    enabled,
  });
}

/** The key to chat with: the playground token's (made on first use) or one token's of the user. */
export function usePlaygroundKey(tokenId: number | 'playground', enabled: boolean) {
  return useQuery({
    queryKey: ['token', 'playground', tokenId],
    queryFn: () =>
      apiGet<string>(tokenId === 'playground' ? '/api/token/playground' : `/api/token/${tokenId}/key`),
    enabled,
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** The consume log of the reply just finished (settlement is written a moment after the stream ends). */
export async function loggedQuota(
  tokenName: string,
  model: string,
  since: number,
): Promise<number | undefined> {
  for (let attempt = 0; attempt < 6; attempt++) {
    const page = await apiGet<{ data: LogRow[] }>('/api/log/self', {
      query: {
        token_name: tokenName,
        model_name: model,
        log_type: 2,
        start_timestamp: since,
        size: 1,
      },
      silent: true,
    }).catch(() => undefined);
    const row = page?.data[0];
    if (row) return row.quota;
    await new Promise((resolve) => setTimeout(resolve, 250 * (attempt + 1)));
  }
  return undefined;
}

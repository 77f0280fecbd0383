import {
  type DefaultError,
  QueryClient,
  type QueryKey,
  type UseQueryOptions,
  type UseQueryResult,
  usePrefetchQuery,
  useQuery,
} from '@tanstack/react-query';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // The api client already told the user what failed; retrying would repeat the toast and the wait.
      queries: { retry: false, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}

type EarlyQueryOptions<T, K extends QueryKey> = UseQueryOptions<T, DefaultError, T, K> & {
  queryKey: K;
  queryFn: () => Promise<T>;
};

/**
 * useQuery whose request leaves while the screen renders. useQuery alone asks once the screen has
 * been committed and painted, a few hundred milliseconds later on a slow phone: for what a first
 * screen shows at once (the balance, the week's usage).
 */
export function useEarlyQuery<T, K extends QueryKey>(options: EarlyQueryOptions<T, K>): UseQueryResult<T> {
  usePrefetchQuery(options);
  return useQuery(options);
}

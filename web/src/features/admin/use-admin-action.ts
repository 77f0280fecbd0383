import { useMutation, useQueryClient } from '@tanstack/react-query';
import { i18n } from '../../i18n';
import { toast } from '../../lib/toast';

/**
 * A write from an admin screen: the api client already toasts failures; success is toasted here and
 * the lists named by `invalidate` (query-key prefixes, usually API paths) are fetched again.
 */
export function useAdminAction<A, R>(
  run: (arg: A) => Promise<R>,
  options: { invalidate: readonly string[]; success?: string | ((result: R) => string) | false },
) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSuccess: async (result) => {
      const message =
        options.success === undefined
          ? i18n.t('admin.common.saved')
          : typeof options.success === 'function'
            ? options.success(result)
            : options.success;
      if (message) toast.success(message);
      await Promise.all(options.invalidate.map((key) => client.invalidateQueries({ queryKey: [key] })));
    },
  });
}

import { useQuery } from '@tanstack/react-query';
import { api, apiGet, apiPut } from '../../lib/api-client';
import type { OptionRow } from './settings-form';

export const OPTION_PATH = '/api/option';

/** Every stored option (root only: a 403 is the screen's to explain, so no toast). */
export function useOptions() {
  return useQuery({
    queryKey: [OPTION_PATH],
    queryFn: () => apiGet<OptionRow[]>(OPTION_PATH, { silent: true }),
  });
}

export function saveOptions(options: Record<string, string>) {
  return apiPut(OPTION_PATH, { options });
}

/** Back to the option's default. */
export function clearOption(key: string) {
  return api('DELETE', `${OPTION_PATH}/${key}`);
}

/** Deletes the log rows older than `seconds`; answers how many. */
export function deleteLogsBefore(seconds: number) {
  return api<number>('DELETE', '/api/log', { query: { target_timestamp: seconds } });
}

import type { ModelOwnerView } from '@switchyard/domain';
import { useQuery } from '@tanstack/react-query';
import type { TableControls } from '../../components/data-table';
import { api, apiGet, apiPost, apiPut } from '../../lib/api-client';
import { pageLocally } from '../admin/local-page';

export const MODEL_OWNER_PATH = '/api/model_ownedby';
/** Owner changes also reach the owner lookup every other screen shares (features/site). */
export const MODEL_OWNER_QUERIES = [MODEL_OWNER_PATH, 'model_ownedby'] as const;

/** The whole list, fetched once, paged and filtered here by the table's URL state. */
export function useModelOwnerPage(controls: TableControls<'keyword'>) {
  const owners = useQuery({
    queryKey: [MODEL_OWNER_PATH],
    queryFn: () => apiGet<ModelOwnerView[]>(MODEL_OWNER_PATH),
  });
  const keyword = controls.state.filters.keyword.toLowerCase();
  const page = owners.data
    ? pageLocally(
        owners.data,
        controls.state,
        (o) => !keyword || o.name.toLowerCase().includes(keyword) || String(o.id) === keyword,
      )
    : undefined;
  return { all: owners.data, query: { ...owners, data: page } };
}

export function saveModelOwner(body: unknown, existing: boolean) {
  return existing ? apiPut(MODEL_OWNER_PATH, body) : apiPost(MODEL_OWNER_PATH, body);
}

export function deleteModelOwner(id: number) {
  return api('DELETE', `${MODEL_OWNER_PATH}/${id}`);
}

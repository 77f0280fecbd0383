import type { BalanceUpdateReport, ChannelView, Page } from '@switchyard/domain';
import { useQuery } from '@tanstack/react-query';
import { type TableControls, useTableQuery } from '../../components/data-table';
import { api, apiGet, apiPost, apiPut, request } from '../../lib/api-client';
import { usePrices } from '../pricing/api';
import { useModelOwners } from '../site/api';

export const CHANNEL_PATH = '/api/channel';
export const TAG_PATH = '/api/channel_tag';
/** A channel change also changes the tag summaries and the members of each tag. */
export const CHANNEL_QUERIES = [CHANNEL_PATH, `${TAG_PATH}/_all`, TAG_PATH] as const;

export interface TagSummary {
  tag: string;
  count: number;
  enabled: number;
}

export interface ChannelTestAnswer {
  ok: boolean;
  model: string;
  time: number;
  message: string;
}

export async function updateChannel(
  body: Record<string, unknown>,
  options: { silent?: boolean } = {},
): Promise<ChannelView> {
  return (await request<ChannelView>('PUT', CHANNEL_PATH, { body, silent: options.silent }))
    .data as ChannelView;
}

/**
 * Saves a priority or weight edited in its table cell. A failure is the caller's to announce with
 * one-hub's own message ("Priority update failed"), so the client's generic toast stays out of it.
 */
export async function saveChannelNumber(
  id: number,
  field: 'priority' | 'weight',
  value: number,
): Promise<ChannelView> {
  return updateChannel({ id, [field]: value }, { silent: true });
}

/** One test request; the envelope's message says why it failed. */
export async function testChannel(
  id: number,
  model?: string,
): Promise<{ answer: ChannelTestAnswer; message: string }> {
  const envelope = await request<ChannelTestAnswer>('GET', `${CHANNEL_PATH}/test/${id}`, {
    query: model ? { model } : {},
  });
  return { answer: envelope.data as ChannelTestAnswer, message: envelope.message };
}

/** Every channel id with its status, page by page (the list API gives at most 100 at once). */
export async function allChannels(): Promise<ChannelView[]> {
  const out: ChannelView[] = [];
  for (let page = 1; ; page++) {
    const batch = await apiGet<Page<ChannelView>>(CHANNEL_PATH, { query: { page, size: 100, order: 'id' } });
    out.push(...batch.data);
    if (batch.data.length === 0 || out.length >= batch.total_count) return out;
  }
}

export function useGroupSymbols() {
  return useQuery({ queryKey: ['/api/group'], queryFn: () => apiGet<string[]>('/api/group') });
}

export function useTags() {
  return useQuery({
    queryKey: [`${TAG_PATH}/_all`],
    queryFn: () => apiGet<TagSummary[]>(`${TAG_PATH}/_all`),
  });
}

/** Priced models with their owner's name, for the models field grouped by owner. */
export function useModelCatalog() {
  const owners = useModelOwners();
  const prices = usePrices();
  const names = new Map((owners.data ?? []).map((o) => [o.id, o.name]));
  return (prices.data ?? [])
    .map((p) => ({ model: p.model, owner: names.get(p.channel_type) ?? '' }))
    .sort((a, b) => a.owner.localeCompare(b.owner) || a.model.localeCompare(b.model));
}

/** The models prices are set for (exact or `prefix*`), once loaded; shares the catalog's query. */
export function usePricedModels(): string[] | undefined {
  const prices = usePrices();
  return prices.data?.map((p) => p.model);
}

export function useChannelPage(controls: TableControls) {
  return useTableQuery<ChannelView>(CHANNEL_PATH, controls);
}

/** One channel with its key, for the editor. */
export function fetchChannel(id: number) {
  return apiGet<ChannelView>(`${CHANNEL_PATH}/${id}`);
}

export async function saveChannel(body: Record<string, unknown>, existing: boolean) {
  await request<unknown>(existing ? 'PUT' : 'POST', CHANNEL_PATH, { body });
}

/** The models the provider lists for this key (a saved channel's own key when `id` is given). */
export function providerModels(body: Record<string, unknown>) {
  return apiPost<string[]>(`${CHANNEL_PATH}/provider_models_list`, body);
}

export function copyChannel(id: number) {
  return apiPost(`${CHANNEL_PATH}/${id}/copy`);
}

export function deleteChannel(id: number) {
  return api('DELETE', `${CHANNEL_PATH}/${id}`);
}

/** Answers how many were deleted. */
export function deleteChannels(ids: number[]) {
  return api<number>('DELETE', `${CHANNEL_PATH}/batch`, { body: { ids } });
}

/** Answers how many were deleted. */
export function deleteDisabledChannels() {
  return api<number>('DELETE', `${CHANNEL_PATH}/disabled`);
}

export function updateBalances() {
  return apiGet<BalanceUpdateReport>(`${CHANNEL_PATH}/update_balance`);
}

export function updateBalance(id: number) {
  return apiGet(`${CHANNEL_PATH}/update_balance/${id}`);
}

function tagPath(tag: string) {
  return `${TAG_PATH}/${encodeURIComponent(tag)}`;
}

export function useTagMembers(tag: string) {
  return useQuery({
    queryKey: [TAG_PATH, tag],
    queryFn: () => apiGet<ChannelView[]>(`${tagPath(tag)}/list`),
  });
}

export function setTagEnabled({ tag, enable }: { tag: string; enable: boolean }) {
  return apiPut(`${tagPath(tag)}/status/${enable ? 'enable' : 'disable'}`);
}

export function setTagPriority({ tag, value }: { tag: string; value: number }) {
  return apiPut(`${tagPath(tag)}/priority`, { type: 'priority', value });
}

export function deleteTag(tag: string) {
  return api('DELETE', tagPath(tag));
}

import type { TelegramMenuView } from '@switchyard/domain';
import { useQuery } from '@tanstack/react-query';
import { type TableControls, useTableQuery } from '../../components/data-table';
import { api, apiGet, apiPost } from '../../lib/api-client';

export const TELEGRAM_PATH = '/api/option/telegram';

export interface TelegramBotStatus {
  status: boolean;
  is_webhook: boolean;
}

export function useTelegramMenuPage(controls: TableControls) {
  return useTableQuery<TelegramMenuView>(TELEGRAM_PATH, controls);
}

/** Whether the bot runs, and whether by webhook (else by polling). */
export function useTelegramBotStatus() {
  return useQuery({
    queryKey: [TELEGRAM_PATH, 'status'],
    queryFn: () => apiGet<TelegramBotStatus>(`${TELEGRAM_PATH}/status`),
  });
}

/** Creates a menu entry (id 0) or updates one. */
export function saveTelegramMenu(body: unknown) {
  return apiPost(TELEGRAM_PATH, body);
}

export function deleteTelegramMenu(id: number) {
  return api('DELETE', `${TELEGRAM_PATH}/${id}`);
}

/** Restarts the bot and registers its command list (built-ins and the menu) with Telegram again. */
export function reloadTelegramBot() {
  return api<Pick<TelegramBotStatus, 'status'>>('PUT', `${TELEGRAM_PATH}/reload`);
}

import { ErrorCode } from '@switchyard/domain';
import type { Update } from 'grammy/types';
import { z } from 'zod';
import { ApiError } from '../../http/api-error.js';
import type { RouteContext } from '../../http/route.js';
import { audit } from '../audit.js';

// The messaging bot's routes: its status and restart for the console's bot screen (root), and the
// webhook Telegram posts updates to when TelegramWebhookSecret is set.

/** Telegram's update object: only its id is read here; the bot reads the rest. */
export const telegramUpdateBody = z.looseObject({
  update_id: z.number({ error: 'update_id must be a number' }).int().nonnegative(),
});

/** GET /api/option/telegram/status: whether the bot runs, and whether by webhook (else polling). */
export async function telegramBotStatus({ s }: RouteContext<unknown, unknown, unknown>) {
  return s.telegram.status();
}

/** PUT /api/option/telegram/reload: starts the bot again and registers its command menu anew. */
export async function reloadTelegramBot({ s, caller, ip }: RouteContext<unknown, unknown, unknown>) {
  await s.telegram.reload();
  await audit(s, caller, ip, 'telegram.reload', { type: 'telegram_bot', id: 0 });
  return s.telegram.status();
}

/**
 * POST /api/telegram/webhook: an update from Telegram, accepted only with the secret it was given
 * at setWebhook (header X-Telegram-Bot-Api-Secret-Token). While the bot is not in webhook mode the
 * path does not exist. A 5xx makes Telegram deliver the update again later.
 */
export async function telegramWebhook({
  s,
  req,
  ip,
  body,
}: RouteContext<z.infer<typeof telegramUpdateBody>, unknown, unknown>) {
  const header = req.headers['x-telegram-bot-api-secret-token'];
  const outcome = await s.telegram.receiveWebhook(
    typeof header === 'string' ? header : undefined,
    body as unknown as Update,
  );
  switch (outcome) {
    case 'handled':
      return null;
    case 'not-webhook':
      throw ApiError.notFound();
    case 'wrong-secret':
      req.log.warn({ ip }, 'Telegram webhook call refused: wrong or missing secret token');
      throw ApiError.unauthorized('Wrong secret token', ErrorCode.forbidden);
    case 'not-ready':
      throw new ApiError(503, ErrorCode.unavailable, 'The bot is still connecting to Telegram');
  }
}

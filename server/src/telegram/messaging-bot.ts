import type { Update } from 'grammy/types';

// What the routes see of the messaging bot (TelegramBot of telegram-bot.ts). It imports none of the
// bot's modules, so services.ts can name it without the bot's commands coming back round to it.

export type WebhookOutcome = 'handled' | 'not-webhook' | 'wrong-secret' | 'not-ready';

export interface MessagingBot {
  /** `{status, is_webhook}` as the console's bot screen reads it. */
  status(): { status: boolean; is_webhook: boolean };
  /** The bot's username once connected, for the profile page's link (site status `telegram_bot`). */
  username(): string;
  /** Starts again and registers the command menu anew. */
  reload(): Promise<void>;
  /** An update Telegram posted to the webhook, checked against the secret header first. */
  receiveWebhook(secretHeader: string | undefined, update: Update): Promise<WebhookOutcome>;
}

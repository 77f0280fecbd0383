import type { Bot } from 'grammy';
import type { Dispatcher } from 'undici';
import type { TelegramMenusQueries } from '../db/queries/telegram-menus.js';
import type { TelegramUpdatesQueries } from '../db/queries/telegram-updates.js';
import type { PollLease } from './long-poller.js';

// What the messaging bot is given and how long it waits: shared by telegram-bot.ts and the
// bot-run.ts it loads when a token is set.

export interface TelegramBotSettings {
  token: string;
  webhookSecret: string;
  serverAddress: string;
}

export interface TelegramBotDeps {
  /** The bot's settings now (the options TelegramBotToken, TelegramWebhookSecret, ServerAddress). */
  settings(): TelegramBotSettings;
  apiUrl: string;
  dispatcher: Dispatcher;
  lease: PollLease;
  claims: TelegramUpdatesQueries;
  menus: TelegramMenusQueries;
  nodeId: string;
  nowSeconds(): number;
  /** Puts the commands on a freshly built grammY bot (bot-commands.ts). */
  install(bot: Bot): void;
  warn(message: string): void;
  timing?: Partial<TelegramTiming>;
}

/** The timing given, the defaults for what it leaves out. */
export function telegramTiming(timing: Partial<TelegramTiming> = {}): TelegramTiming {
  return { ...DEFAULT_TIMING, ...timing };
}

/** How long a poller's lease lasts: longer than one getUpdates call at its slowest. */
export function pollLeaseMs(timing: Partial<TelegramTiming> = {}): number {
  const t = telegramTiming(timing);
  return (t.pollSeconds + t.callTimeoutSeconds + 15) * 1000;
}

export interface TelegramTiming {
  pollSeconds: number;
  leaseRetryMs: number;
  backoffFirstMs: number;
  backoffMaxMs: number;
  /** A Bot API call that has not answered in this long fails (getUpdates: on top of pollSeconds). */
  callTimeoutSeconds: number;
}

const DEFAULT_TIMING: TelegramTiming = {
  pollSeconds: 25,
  leaseRetryMs: 5000,
  backoffFirstMs: 1000,
  backoffMaxMs: 60_000,
  callTimeoutSeconds: 20,
};

import { timingSafeEqual } from 'node:crypto';
import type { Update } from 'grammy/types';
import type { BotRun } from './bot-run.js';
import { type TelegramBotDeps, type TelegramTiming, telegramTiming } from './bot-settings.js';
import type { MessagingBot, WebhookOutcome } from './messaging-bot.js';

/** Claims kept this long: Telegram gives up redelivering an update after 24 hours. */
const CLAIM_KEEP_SECONDS = 24 * 3600;
const PRUNE_EVERY_SECONDS = 3600;

/**
 * The messaging bot (options TelegramBotToken, TelegramWebhookSecret): off without a token; with a
 * webhook secret Telegram posts updates to ServerAddress + /api/telegram/webhook carrying the secret
 * header; without one the bot long-polls on the one node holding the `telegram-poll` lease. Each
 * update is claimed in `telegram_updates` first, so it is answered once whichever node or delivery
 * gets it. A change of those options restarts it; errors are logged and never end the process.
 */
export class TelegramBot implements MessagingBot {
  private run: BotRun | undefined;
  private applying: Promise<void> = Promise.resolve();
  private lastPrune = 0;
  private stopped = false;
  private readonly timing: TelegramTiming;

  constructor(private readonly deps: TelegramBotDeps) {
    this.timing = telegramTiming(deps.timing);
  }

  /** `{status, is_webhook}` as the console's bot screen reads it. */
  status(): { status: boolean; is_webhook: boolean } {
    return { status: this.run?.ready ?? false, is_webhook: this.run?.webhook ?? false };
  }

  /** The bot's username once connected, for the profile page's link (site status `telegram_bot`). */
  username(): string {
    return this.run?.ready ? this.run.username : '';
  }

  /** Follows the current settings: restarts the bot when they changed, or always with `force`. */
  apply(force = false): Promise<void> {
    this.applying = this.applying
      .catch(() => {})
      .then(async () => {
        // An option reload arriving while the node shuts down must not start the bot again.
        if (this.stopped) return;
        const next = this.deps.settings();
        const current = this.run?.settings;
        if (
          !force &&
          current?.token === next.token &&
          current.webhookSecret === next.webhookSecret &&
          current.serverAddress === next.serverAddress
        )
          return;
        if (!force && !current && next.token === '') return;
        await this.run?.stop();
        this.run = undefined;
        if (next.token === '') return;
        // Loaded here, not at start: a node without a bot token never loads grammY.
        const { BotRun } = await import('./bot-run.js');
        this.run = new BotRun(next, this.deps, this.timing, (run, update) => this.process(run, update));
        await this.run.start();
      });
    return this.applying;
  }

  /** PUT /api/option/telegram/reload: starts again and registers the command menu anew. */
  async reload(): Promise<void> {
    await this.apply(true);
  }

  /** An update Telegram posted to the webhook, checked against the secret header first. */
  async receiveWebhook(secretHeader: string | undefined, update: Update): Promise<WebhookOutcome> {
    const run = this.run;
    if (!run?.webhook) return 'not-webhook';
    if (!sameSecret(secretHeader ?? '', run.settings.webhookSecret)) return 'wrong-secret';
    if (!run.ready) return 'not-ready';
    await this.process(run, update);
    return 'handled';
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.applying.catch(() => {});
    await this.run?.stop();
    this.run = undefined;
  }

  /**
   * Claims the update, then answers it. A failed claim (the database away) throws, so the update
   * comes again (the poller does not confirm it, the webhook answers 5xx and Telegram retries); a
   * failure while answering is logged, and the claimed update is not answered twice.
   */
  private async process(run: BotRun, update: Update): Promise<void> {
    const now = this.deps.nowSeconds();
    if (!(await this.deps.claims.claim(update.update_id, this.deps.nodeId, now))) return;
    if (now - this.lastPrune >= PRUNE_EVERY_SECONDS) {
      this.lastPrune = now;
      await this.deps.claims
        .prune(now - CLAIM_KEEP_SECONDS)
        .catch((err: unknown) =>
          this.deps.warn(`old Telegram update claims could not be pruned: ${String(err)}`),
        );
    }
    await run.answer(update);
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

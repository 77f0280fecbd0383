import { setTimeout as sleep } from 'node:timers/promises';
import { type Bot, GrammyError } from 'grammy';
import type { Update } from 'grammy/types';
import { grammySignal } from './telegram-fetch.js';

/** The lease a poller needs to call getUpdates: one node at a time polls a bot. */
export interface PollLease {
  hold(): Promise<boolean>;
  release(): Promise<void>;
}

export interface PollerOptions {
  /** Seconds Telegram holds a getUpdates call open when there is nothing new. */
  pollSeconds: number;
  /** How often a node without the lease asks for it again. */
  leaseRetryMs: number;
  /** First and longest wait after a failed call (doubling in between). */
  backoffMs: { first: number; max: number };
  handle(update: Update): Promise<void>;
  warn(message: string): void;
}

/**
 * Long polling (getUpdates) under a lease: only the node holding it polls, the others ask again
 * every few seconds and take over when it stops renewing. Telegram being away, refusing the token
 * or answering 409 (another poller, or a webhook still set) costs a doubling back-off, never the
 * process. stop() aborts the call in flight and hands the lease over at once.
 */
export class LongPoller {
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private offset: number | undefined;
  private webhookCleared = false;
  private held = false;

  constructor(
    private readonly bot: Bot,
    private readonly lease: PollLease,
    private readonly o: PollerOptions,
  ) {}

  /** Whether this node polls right now (it holds the lease). */
  get polling(): boolean {
    return this.held;
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    if (this.held) await this.lease.release().catch(() => {});
    this.held = false;
  }

  private async run(): Promise<void> {
    const signal = this.abort.signal;
    let backoff = 0;
    while (!signal.aborted) {
      let wait = 0;
      try {
        this.held = await this.lease.hold();
        if (!this.held) {
          wait = this.o.leaseRetryMs;
        } else {
          if (!this.webhookCleared) {
            // A webhook left from webhook mode makes every getUpdates fail with 409.
            await this.bot.api.deleteWebhook({}, grammySignal(signal));
            this.webhookCleared = true;
          }
          const updates = await this.bot.api.getUpdates(
            {
              ...(this.offset !== undefined ? { offset: this.offset } : {}),
              timeout: this.o.pollSeconds,
              allowed_updates: ['message'],
            },
            grammySignal(signal),
          );
          backoff = 0;
          let renewed = Date.now();
          for (const update of updates) {
            if (signal.aborted) break;
            // A long batch keeps the lease; once it is lost the rest is left to its new holder.
            if (Date.now() - renewed > this.o.leaseRetryMs) {
              renewed = Date.now();
              this.held = await this.lease.hold();
              if (!this.held) break;
            }
            // A failed claim (the database away) throws: the update stays unconfirmed and comes
            // again after the back-off. Confirmed ones go with the next call's offset.
            await this.o.handle(update);
            this.offset = update.update_id + 1;
          }
        }
      } catch (err) {
        if (signal.aborted) break;
        backoff = Math.min(backoff === 0 ? this.o.backoffMs.first : backoff * 2, this.o.backoffMs.max);
        wait = backoff;
        if (err instanceof GrammyError) {
          const retryAfter = err.parameters.retry_after;
          if (retryAfter !== undefined) wait = Math.max(wait, retryAfter * 1000);
          if (err.error_code === 409) this.webhookCleared = false;
          this.o.warn(
            err.error_code === 401
              ? 'Telegram refused the bot token (401): check TelegramBotToken'
              : `Telegram answered ${err.method} with ${err.error_code} ${err.description}; trying again in ${Math.round(wait / 1000)} s`,
          );
        } else {
          this.o.warn(
            `Telegram polling failed (${err instanceof Error ? err.message : String(err)}); trying again in ${Math.round(wait / 1000)} s`,
          );
        }
      }
      if (wait > 0 && !signal.aborted) await sleep(wait, undefined, { signal }).catch(() => {});
    }
  }
}

import { timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Bot, BotError, GrammyError, HttpError } from 'grammy';
import type { Update } from 'grammy/types';
import type { Dispatcher } from 'undici';
import type { TelegramMenusQueries } from '../db/queries/telegram-menus.js';
import type { TelegramUpdatesQueries } from '../db/queries/telegram-updates.js';
import { BUILTIN_COMMAND_LIST } from './bot-commands.js';
import { textsFor } from './bot-texts.js';
import { LongPoller, type PollLease } from './long-poller.js';
import type { MessagingBot, WebhookOutcome } from './messaging-bot.js';
import { grammySignal, telegramFetch } from './telegram-fetch.js';

/** The path Telegram posts updates to in webhook mode (ServerAddress + this). */
export const TELEGRAM_WEBHOOK_PATH = '/api/telegram/webhook';
/** Claims kept this long: Telegram gives up redelivering an update after 24 hours. */
const CLAIM_KEEP_SECONDS = 24 * 3600;
const PRUNE_EVERY_SECONDS = 3600;
/** The most menu entries registered with Telegram (its own limit for setMyCommands). */
const COMMANDS_MAX = 100;

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

/** How long a poller's lease lasts: longer than one getUpdates call at its slowest. */
export function pollLeaseMs(timing: Partial<TelegramTiming> = {}): number {
  const t = { ...DEFAULT_TIMING, ...timing };
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

/** One run of the bot with one set of settings; a change of settings stops it and starts another. */
class BotRun {
  readonly bot: Bot;
  ready = false;
  username = '';
  private readonly abort = new AbortController();
  private poller: LongPoller | undefined;
  private connecting: Promise<void> | undefined;

  constructor(
    readonly settings: TelegramBotSettings,
    private readonly deps: TelegramBotDeps,
    private readonly timing: TelegramTiming,
    private readonly handle: (bot: Bot, update: Update) => Promise<void>,
  ) {
    this.bot = new Bot(settings.token, {
      client: {
        apiRoot: deps.apiUrl,
        // grammY's type is node-fetch's; the undici fetch takes the same calls.
        fetch: telegramFetch(deps.dispatcher) as never,
        timeoutSeconds: timing.pollSeconds + timing.callTimeoutSeconds,
      },
    });
    deps.install(this.bot);
  }

  get webhook(): boolean {
    return this.settings.webhookSecret !== '';
  }

  /** Starts connecting in the background; the promise ends after the first attempt either way. */
  start(): Promise<void> {
    let first: () => void = () => {};
    const attempted = new Promise<void>((resolve) => {
      first = resolve;
    });
    this.connecting = this.connect(first);
    return attempted;
  }

  private async connect(attempted: () => void): Promise<void> {
    const signal = this.abort.signal;
    let wait = 0;
    while (!signal.aborted) {
      try {
        // getMe by hand: grammY's init() retries a 5xx forever by itself, which would hide an
        // outage from the log and from the status this run reports.
        this.bot.botInfo = await this.bot.api.getMe(grammySignal(signal));
        this.username = this.bot.botInfo.username;
        await this.registerCommands(signal);
        if (this.webhook) {
          await this.bot.api.setWebhook(
            `${this.settings.serverAddress.replace(/\/+$/, '')}${TELEGRAM_WEBHOOK_PATH}`,
            { secret_token: this.settings.webhookSecret, allowed_updates: ['message'] },
            grammySignal(signal),
          );
        } else {
          this.poller = new LongPoller(this.bot, this.deps.lease, {
            pollSeconds: this.timing.pollSeconds,
            leaseRetryMs: this.timing.leaseRetryMs,
            backoffMs: { first: this.timing.backoffFirstMs, max: this.timing.backoffMaxMs },
            handle: (update) => this.handle(this.bot, update),
            warn: this.deps.warn,
          });
          this.poller.start();
        }
        this.ready = true;
        attempted();
        return;
      } catch (err) {
        attempted();
        if (signal.aborted) return;
        wait = Math.min(wait === 0 ? this.timing.backoffFirstMs : wait * 2, this.timing.backoffMaxMs);
        this.deps.warn(
          `the Telegram bot could not start (${describe(err)}); trying again in ${Math.round(wait / 1000)} s`,
        );
        await sleep(wait, undefined, { signal }).catch(() => {});
      }
    }
  }

  /** Telegram's command menu: the built-in commands, then the administrator's entries. */
  async registerCommands(signal: AbortSignal): Promise<void> {
    const menu = await this.deps.menus.list(undefined, {
      order: [{ column: 'id', direction: 'asc' }],
      size: COMMANDS_MAX,
      offset: 0,
    });
    const commands = [
      ...BUILTIN_COMMAND_LIST,
      ...menu.rows.map((r) => ({ command: r.command, description: r.description.slice(0, 256) })),
    ].slice(0, COMMANDS_MAX);
    await this.bot.api.setMyCommands(commands, {}, grammySignal(signal));
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.connecting;
    await this.poller?.stop();
    this.ready = false;
  }
}

function describe(err: unknown): string {
  if (err instanceof GrammyError) return `${err.error_code} ${err.description}`;
  return err instanceof Error ? err.message : String(err);
}

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
    this.timing = { ...DEFAULT_TIMING, ...deps.timing };
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
        this.run = new BotRun(next, this.deps, this.timing, (bot, update) => this.process(bot, update));
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
    await this.process(run.bot, update);
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
  private async process(bot: Bot, update: Update): Promise<void> {
    const now = this.deps.nowSeconds();
    if (!(await this.deps.claims.claim(update.update_id, this.deps.nodeId, now))) return;
    try {
      if (now - this.lastPrune >= PRUNE_EVERY_SECONDS) {
        this.lastPrune = now;
        await this.deps.claims.prune(now - CLAIM_KEEP_SECONDS);
      }
      await bot.handleUpdate(update);
    } catch (err) {
      const cause = err instanceof BotError ? err.error : err;
      this.deps.warn(`the Telegram bot failed to answer update ${update.update_id}: ${describe(cause)}`);
      if (err instanceof BotError && !(cause instanceof GrammyError || cause instanceof HttpError)) {
        // Our side failed (not Telegram's): the sender hears so instead of nothing.
        await err.ctx.reply(textsFor(err.ctx.from?.language_code).failed).catch(() => {});
      }
    }
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

import { setTimeout as sleep } from 'node:timers/promises';
import { Bot, BotError, GrammyError, HttpError } from 'grammy';
import type { Update } from 'grammy/types';
import { BUILTIN_COMMAND_LIST } from './bot-commands.js';
import type { TelegramBotDeps, TelegramBotSettings, TelegramTiming } from './bot-settings.js';
import { textsFor } from './bot-texts.js';
import { LongPoller } from './long-poller.js';
import { grammySignal, telegramFetch } from './telegram-fetch.js';

// The running bot, grammY and all: telegram-bot.ts loads this module only once a bot token is set,
// so a node without a bot keeps grammY (and the URL tables it brings) out of its memory.

/** The path Telegram posts updates to in webhook mode (ServerAddress + this; routes.ts serves it). */
const TELEGRAM_WEBHOOK_PATH = '/api/telegram/webhook';
/** The most menu entries registered with Telegram (its own limit for setMyCommands). */
const COMMANDS_MAX = 100;

/** One run of the bot with one set of settings; a change of settings stops it and starts another. */
export class BotRun {
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
    private readonly handle: (run: BotRun, update: Update) => Promise<void>,
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
            handle: (update) => this.handle(this, update),
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

  /**
   * Answers an update already claimed. A failure is logged, not thrown: the update is not answered
   * twice; when our side failed (not Telegram's) the sender hears so instead of nothing.
   */
  async answer(update: Update): Promise<void> {
    try {
      await this.bot.handleUpdate(update);
    } catch (err) {
      const cause = err instanceof BotError ? err.error : err;
      this.deps.warn(`the Telegram bot failed to answer update ${update.update_id}: ${describe(cause)}`);
      if (err instanceof BotError && !(cause instanceof GrammyError || cause instanceof HttpError)) {
        await err.ctx.reply(textsFor(err.ctx.from?.language_code).failed).catch(() => {});
      }
    }
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

import {
  ErrorCode,
  fillChatLink,
  renderQuota,
  type TELEGRAM_BUILTIN_COMMANDS,
  TokenStatus,
  UserStatus,
} from '@switchyard/domain';
import type { Bot, Context } from 'grammy';
import { redeemForUser } from '../api/users/redemptions.js';
import { affCodeOf } from '../api/users/users.js';
import { unsealApiKey } from '../auth/api-keys.js';
import { hashAccessToken } from '../auth/authenticate.js';
import type { UserRow } from '../db/tables.js';
import { ApiError } from '../http/api-error.js';
import type { Services } from '../services.js';
import { escapeHtml, say, type TextKey, textsFor } from './bot-texts.js';

/** Messages one chat may send per minute; more are dropped unanswered. */
export const CHAT_MESSAGES_PER_MINUTE = 20;
/** How long "send me the token / the code" waits for the next message. */
const PENDING_SECONDS = 300;
/** API keys listed by /apikey (a Telegram message holds 4096 characters). */
const KEYS_SHOWN = 10;
/** The longest argument read (an access token, a redemption code). */
const ARGUMENT_MAX = 256;

type Pending = 'bind' | 'recharge';

/** The commands Telegram's menu lists, in this order (the administrator's menu follows). */
export const BUILTIN_COMMAND_LIST: readonly { command: string; description: string }[] = [
  { command: 'bind', description: 'Link your account' },
  { command: 'unbind', description: 'Unlink your account' },
  { command: 'balance', description: 'Your balance' },
  { command: 'recharge', description: 'Redeem a code' },
  { command: 'apikey', description: 'Your API keys' },
  { command: 'aff', description: 'Your invite link' },
];

/**
 * Installs the bot's behaviour on a grammY bot: the per-chat rate limit, the built-in commands, the
 * administrator's menu (`telegram_menus`), a polite answer to anything else. `services` is read per
 * update, so a bot built before the services object exists works once it does.
 */
export function installCommands(bot: Bot, services: () => Services): void {
  bot.use(async (ctx, next) => {
    const chat = ctx.chat?.id;
    if (chat === undefined || !ctx.message?.text) return;
    const decision = await services().limiter.hit(`telegram:${chat}`, CHAT_MESSAGES_PER_MINUTE, 60);
    if (!decision.allowed) return;
    await next();
  });

  const handlers: Record<
    (typeof TELEGRAM_BUILTIN_COMMANDS)[number],
    (ctx: Context, arg: string) => Promise<void>
  > = {
    bind: (ctx, arg) => bind(services(), ctx, arg),
    unbind: (ctx) => withUser(services(), ctx, (user) => unbind(services(), ctx, user)),
    balance: (ctx) => withUser(services(), ctx, (user) => balance(services(), ctx, user)),
    recharge: (ctx, arg) => withUser(services(), ctx, (user) => recharge(services(), ctx, user, arg)),
    apikey: (ctx) => withUser(services(), ctx, (user) => apiKeys(services(), ctx, user)),
    aff: (ctx) => withUser(services(), ctx, (user) => aff(services(), ctx, user)),
  };

  bot.command(['start', 'help'], (ctx) => reply(ctx, 'help'));
  for (const [name, handle] of Object.entries(handlers)) {
    bot.command(name, async (ctx) => {
      if (ctx.chat.type !== 'private') return reply(ctx, 'privateOnly');
      await services().codes.delete(pendingKey(ctx));
      await handle(ctx, argumentOf(ctx.match));
    });
  }

  bot.on('message:text', async (ctx) => {
    const s = services();
    const text = ctx.message.text.trim();
    const parsed = /^\/([A-Za-z0-9_]{1,64})(?:@(\w+))?(?:\s|$)/.exec(text);
    // In a group, a command addressed to another bot (/help@other_bot) is not ours to answer.
    if (parsed?.[2] && parsed[2].toLowerCase() !== ctx.me.username.toLowerCase()) return;
    const command = parsed?.[1]?.toLowerCase();
    if (command === undefined) {
      // The answer to "send me the token / the code".
      if (ctx.chat.type !== 'private') return;
      const pending = (await s.codes.take(pendingKey(ctx))) as Pending | undefined;
      if (pending === 'bind') return bind(s, ctx, argumentOf(text));
      if (pending === 'recharge') return withUser(s, ctx, (user) => recharge(s, ctx, user, argumentOf(text)));
      return reply(ctx, 'help');
    }
    const entry = await s.repos.telegramMenus.byCommand(command);
    if (entry) {
      await ctx.reply(entry.reply_message, {
        parse_mode: entry.parse_mode as 'MarkdownV2' | 'Markdown' | 'HTML',
      });
      return;
    }
    await reply(ctx, 'unknown', { command: `/${command}` });
  });
}

function argumentOf(match: unknown): string {
  return typeof match === 'string' ? match.trim().slice(0, ARGUMENT_MAX) : '';
}

function pendingKey(ctx: Context): string {
  return `telegram-pending:${ctx.chat?.id ?? 0}`;
}

async function reply(
  ctx: Context,
  key: TextKey,
  values: Record<string, string | number> = {},
): Promise<void> {
  await ctx.reply(say(textsFor(ctx.from?.language_code), key, values));
}

/** Runs `then` for the enabled account bound to the sender, else says why not. */
async function withUser(s: Services, ctx: Context, then: (user: UserRow) => Promise<void>): Promise<void> {
  const user = await s.repos.users.byTelegramId(ctx.from?.id ?? 0);
  if (!user) return reply(ctx, 'notBound');
  if (user.status !== UserStatus.Enabled) return reply(ctx, 'disabled');
  await then(user);
}

async function ask(s: Services, ctx: Context, what: Pending): Promise<void> {
  await s.codes.set(pendingKey(ctx), what, PENDING_SECONDS);
  await reply(ctx, what === 'bind' ? 'bindAsk' : 'rechargeAsk');
}

async function bind(s: Services, ctx: Context, token: string): Promise<void> {
  const telegramId = ctx.from?.id ?? 0;
  const bound = await s.repos.users.byTelegramId(telegramId);
  if (bound) return reply(ctx, 'bindAlready', { username: bound.username });
  if (!token) return ask(s, ctx, 'bind');
  const user = await s.repos.users.byAccessTokenHash(hashAccessToken(token));
  if (!user) return reply(ctx, 'bindInvalid');
  if (user.status !== UserStatus.Enabled) return reply(ctx, 'disabled');
  if (user.telegram_id !== 0 && user.telegram_id !== telegramId) return reply(ctx, 'bindTaken');
  if (!(await s.repos.users.setTelegramId(user.id, telegramId, user.telegram_id)))
    return reply(ctx, 'bindTaken');
  await reply(ctx, 'bindDone', { username: user.username });
}

async function unbind(s: Services, ctx: Context, user: UserRow): Promise<void> {
  await s.repos.users.setTelegramId(user.id, 0, user.telegram_id);
  await reply(ctx, 'unbindDone', { username: user.username });
}

/** In currency when the site shows currency, else the exact quota (a chat has room for every digit). */
function money(s: Services, quota: number): string {
  const o = s.options.current;
  if (!o.DisplayInCurrencyEnabled) return String(quota);
  return renderQuota(quota, { quotaPerUnit: o.QuotaPerUnit, displayInCurrency: true });
}

async function balance(s: Services, ctx: Context, user: UserRow): Promise<void> {
  await reply(ctx, 'balance', {
    balance: money(s, Number(user.quota)),
    used: money(s, Number(user.used_quota)),
  });
}

async function recharge(s: Services, ctx: Context, user: UserRow, code: string): Promise<void> {
  if (!code) return ask(s, ctx, 'recharge');
  try {
    // The same redemption as the top-up page: a code is credited once, whoever races for it.
    const quota = await redeemForUser(s, user, code, 'telegram');
    const fresh = await s.repos.users.byId(user.id);
    await reply(ctx, 'rechargeDone', {
      amount: money(s, quota),
      balance: money(s, Number(fresh?.quota ?? Number(user.quota) + quota)),
    });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === ErrorCode.redemptionDisabled) return reply(ctx, 'rechargeDisabled');
    if (err.code === ErrorCode.redemptionUsed) return reply(ctx, 'rechargeUsed');
    return reply(ctx, 'rechargeInvalid');
  }
}

async function apiKeys(s: Services, ctx: Context, user: UserRow): Promise<void> {
  const texts = textsFor(ctx.from?.language_code);
  const { rows, total } = await s.repos.tokens.listByUser(user.id, undefined, {
    order: [],
    size: KEYS_SHOWN,
    offset: 0,
  });
  if (rows.length === 0) return reply(ctx, 'noKeys');
  const o = s.options.current;
  const server = o.ServerAddress.replace(/\/+$/, '');
  const links = o.ChatLinks.filter((l) => l.show).sort((a, b) => a.sort - b.sort);
  const parts = rows.map((t) => {
    const key = unsealApiKey(s.secretBox, t.key_sealed);
    const left = t.unlimited_quota
      ? texts.unlimited
      : `${texts.remaining} ${money(s, Number(t.remain_quota))}`;
    const state = t.status === TokenStatus.Enabled ? '' : ' ⛔';
    // Chat apps open through the console's /jump page, which hands custom schemes (ama://...) over.
    const apps = links
      .map((l) => {
        const target = `${server}/jump?url=${encodeURIComponent(fillChatLink(l.url, key, server))}`;
        return `<a href="${escapeHtml(target)}">${escapeHtml(l.name)}</a>`;
      })
      .join(' · ');
    return `<b>${escapeHtml(t.name)}</b>${state} (${escapeHtml(left)})\n<code>${escapeHtml(key)}</code>${apps ? `\n${apps}` : ''}`;
  });
  if (total > rows.length) parts.push(escapeHtml(say(texts, 'keysMore', { n: total - rows.length })));
  await ctx.reply(parts.join('\n\n'), { parse_mode: 'HTML', link_preview_options: { is_disabled: true } });
}

async function aff(s: Services, ctx: Context, user: UserRow): Promise<void> {
  const code = await affCodeOf(s, user);
  const server = s.options.current.ServerAddress.replace(/\/+$/, '');
  await reply(ctx, 'aff', { link: `${server}/register?aff=${encodeURIComponent(code)}` });
}

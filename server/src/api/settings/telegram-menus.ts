import { type TelegramMenuInput, type TelegramMenuView, telegramMenuInput } from '@switchyard/domain';
import { z } from 'zod';
import { isUniqueViolation } from '../../db/dialect.js';
import {
  TELEGRAM_MENU_ORDERABLE,
  type TelegramMenuOrderColumn,
  type TelegramMenuRow,
} from '../../db/queries/telegram-menus.js';
import { ApiError } from '../../http/api-error.js';
import { type PageRequest, pageQuery, pageResult } from '../../http/pagination.js';
import type { RouteContext } from '../../http/route.js';
import { audit } from '../audit.js';
import { type IdParams, optionalText } from '../validation.js';

// The messaging-bot menu (root only): the commands an operator defines for the bot
// beside its built-in ones. Command names are unique, and the schema refuses the built-in names.

export const telegramMenuListQuery = pageQuery(TELEGRAM_MENU_ORDERABLE).and(
  z.object({ keyword: optionalText }),
);
type ListQuery = PageRequest<TelegramMenuOrderColumn> & { keyword?: string | undefined };

export const telegramMenuBody = telegramMenuInput;

function present(row: TelegramMenuRow): TelegramMenuView {
  return {
    id: row.id,
    command: row.command,
    description: row.description,
    parse_mode: row.parse_mode,
    reply_message: row.reply_message,
  };
}

export async function listTelegramMenus({ s, query }: RouteContext<unknown, ListQuery, unknown>) {
  const { rows, total } = await s.repos.telegramMenus.list(query.keyword, query);
  return pageResult(query, rows.map(present), total);
}

export async function getTelegramMenu({ s, params }: RouteContext<unknown, unknown, IdParams>) {
  const row = await s.repos.telegramMenus.byId(params.id);
  if (!row) throw ApiError.notFound('Menu entry not found');
  return present(row);
}

/** POST /api/option/telegram/: id 0 inserts, another id updates that entry. */
export async function saveTelegramMenu({
  s,
  caller,
  ip,
  body,
}: RouteContext<TelegramMenuInput, unknown, unknown>) {
  const taken = () => ApiError.conflict(`The command /${body.command} is already in the menu`);
  const clash = await s.repos.telegramMenus.byCommand(body.command);
  if (clash && clash.id !== body.id) throw taken();
  const fields = {
    command: body.command,
    description: body.description,
    parse_mode: body.parse_mode,
    reply_message: body.reply_message,
  };
  let id = body.id;
  try {
    if (id === 0) {
      id = await s.repos.telegramMenus.insert(fields);
    } else {
      if (!(await s.repos.telegramMenus.byId(id))) throw ApiError.notFound('Menu entry not found');
      await s.repos.telegramMenus.update(id, fields);
    }
  } catch (err) {
    if (isUniqueViolation(err)) throw taken();
    throw err;
  }
  await audit(s, caller, ip, body.id === 0 ? 'telegram_menu.create' : 'telegram_menu.update', {
    type: 'telegram_menu',
    id,
  });
  return present({ id, ...fields });
}

export async function deleteTelegramMenu({
  s,
  caller,
  ip,
  params,
}: RouteContext<unknown, unknown, IdParams>) {
  if (!(await s.repos.telegramMenus.delete(params.id))) throw ApiError.notFound('Menu entry not found');
  await audit(s, caller, ip, 'telegram_menu.delete', { type: 'telegram_menu', id: params.id });
  return null;
}

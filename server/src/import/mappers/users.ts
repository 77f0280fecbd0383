import { createHash } from 'node:crypto';
import { Role } from '@switchyard/domain';
import { newAffCode } from '../../auth/random-codes.js';
import type { NewUser } from '../../db/tables.js';
import { int, text, unixOrNull } from '../row-values.js';
import type { SourceRow } from '../source-reader.js';
import type { MapContext, Mapped } from './mapped.js';

const ROLES = new Set<number>([Role.Common, Role.Admin, Role.Root]);
// Indexed text columns hold 191 characters on PostgreSQL and MySQL.
const SHORT = 191;

/**
 * A user keeps its id (tokens, logs and invitations refer to it), its bcrypt password hash (turned
 * into argon2id at the first sign-in), its quotas, group, invitation code, inviter and bindings.
 */
export function mapUser(r: SourceRow, ctx: MapContext): Mapped<NewUser & { id: number }> {
  const id = int(r, 'id');
  const username = text(r, 'username').trim();
  if (id <= 0) return { skip: 'no id' };
  if (username === '') return { skip: 'empty username' };
  if (username.length > SHORT) return { skip: `username longer than ${SHORT} characters` };
  const notes: string[] = [];
  let role = int(r, 'role', Role.Common);
  if (!ROLES.has(role)) {
    notes.push(`role ${role} became a common user`);
    role = Role.Common;
  }
  let avatar = text(r, 'avatar_url');
  if (avatar.length > SHORT) {
    notes.push('avatar URL too long, dropped');
    avatar = '';
  }
  const accessToken = text(r, 'access_token').trim();
  const affCode = text(r, 'aff_code').trim();
  const row: NewUser & { id: number } = {
    id,
    username,
    password_hash: text(r, 'password'),
    display_name: text(r, 'display_name').slice(0, SHORT),
    role,
    status: int(r, 'status', 1),
    email: text(r, 'email').slice(0, SHORT),
    avatar_url: avatar,
    github_id: text(r, 'github_id').slice(0, SHORT),
    wechat_id: text(r, 'wechat_id').slice(0, SHORT),
    lark_id: text(r, 'lark_id').slice(0, SHORT),
    oidc_id: text(r, 'oidc_id').slice(0, SHORT),
    telegram_id: int(r, 'telegram_id'),
    // The management token keeps working: ours are looked up by their SHA-256.
    access_token_hash: accessToken ? createHash('sha256').update(accessToken).digest('hex') : null,
    quota: int(r, 'quota'),
    used_quota: int(r, 'used_quota'),
    request_count: int(r, 'request_count'),
    group: text(r, 'group', 'default') || 'default',
    aff_code: affCode || newAffCode(),
    inviter_id: int(r, 'inviter_id'),
    last_login_time: int(r, 'last_login_time'),
    last_login_ip: text(r, 'last_login_ip').slice(0, 128),
    created_time: int(r, 'created_time') || ctx.nowSeconds,
    deleted_at: unixOrNull(r, 'deleted_at'),
  };
  if (int(r, 'aff_quota') > 0)
    notes.push(`unclaimed invitation reward ${int(r, 'aff_quota')} not carried over`);
  return notes.length ? { row, note: notes.join('; ') } : { row };
}

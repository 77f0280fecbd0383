import { randomBytes } from 'node:crypto';
import {
  ErrorCode,
  type LogEvent,
  LogType,
  Role,
  type UserCreateInput,
  type UserManageAction,
  type UserManageInput,
  type UserManageResult,
  type UserQuotaInput,
  UserStatus,
  type UserUpdateInput,
  userCreateInput,
  userManageInput,
  userQuotaInput,
  userUpdateInput,
} from '@switchyard/domain';
import { z } from 'zod';
import { newAffCode } from '../../auth/random-codes.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { balanceLogRow, newUserRow, USER_ORDERABLE, type UserOrderColumn } from '../../db/queries/users.js';
import type { UserPatch, UserRow } from '../../db/tables.js';
import { ApiError } from '../../http/api-error.js';
import { type PageRequest, pageQuery, pageResult } from '../../http/pagination.js';
import type { RouteContext } from '../../http/route.js';
import type { Services } from '../../services.js';
import { signupCreditLogs } from '../account/account.js';
import { audit } from '../audit.js';
import { type IdParams, invalidField, optionalText } from '../validation.js';
import { presentUserAdmin } from './user-presenter.js';

// Users as administrators manage them (without one-hub's bugs listed in docs/compatibility.md,
// "one-hub bugs not copied": the delete, quota and session items). The role
// rules: root cannot be disabled, deleted or demoted; nobody acts on a user whose role is equal to
// or higher than their own, except root; only root promotes. Every change applies on the target's
// next request: sessions re-read the user, the relay's user cache is dropped through the bus, and
// disabling or deleting also ends the target's sessions.

/** Topic on the change bus after a user changes: the relay's token authenticator drops its user cache. */
export const USERS_TOPIC = 'users';

export const userListQuery = pageQuery(USER_ORDERABLE).and(z.object({ keyword: optionalText }));
type ListQuery = PageRequest<UserOrderColumn> & { keyword?: string | undefined };

export const userCreateBody = userCreateInput;
export const userUpdateBody = userUpdateInput;
export const userManageBody = userManageInput;
export const userQuotaBody = userQuotaInput;

const BALANCE_EXCEEDED = "Cannot deduct an amount exceeding the user's balance";

async function liveUser(s: Services, id: number): Promise<UserRow> {
  const row = await s.repos.users.byId(id);
  if (!row) throw ApiError.notFound('User not found');
  return row;
}

/** Root acts on anyone; everyone else only on users of a lower role. */
function requireOutranks(caller: UserRow, target: UserRow): void {
  if (caller.role === Role.Root || caller.role > target.role) return;
  throw ApiError.forbidden('You cannot manage a user whose role is equal to or higher than yours');
}

function refuseOnRoot(target: UserRow, what: string): void {
  if (target.role === Role.Root) throw ApiError.conflict(`The root user cannot be ${what}`);
}

/** A group a user may be put in: it must exist and be enabled. */
async function requireUsableGroup(s: Services, symbol: string): Promise<void> {
  const group = await s.repos.userGroups.bySymbol(symbol);
  if (!group) throw invalidField('group', `No such group: ${symbol}`);
  if (!group.enable) throw invalidField('group', `Group "${symbol}" is disabled`);
}

/** The role rules were checked against a row that changed meanwhile: nothing was written. */
function changedMeanwhile(): ApiError {
  return ApiError.conflict('The user was changed by someone else meanwhile; reload and try again');
}

/** Makes a change visible at once: on this node and (through the bus) every other. */
async function announce(s: Services, userId: number, endSessions: boolean): Promise<void> {
  if (endSessions) await s.sessions.destroyAllForUser(userId);
  await s.bus.publish(USERS_TOPIC);
}

export async function listUsers({ s, query }: RouteContext<unknown, ListQuery, unknown>) {
  const { rows, total } = await s.repos.users.list(query.keyword, query);
  return pageResult(query, rows.map(presentUserAdmin), total);
}

/** Reading is not acting: the list shows every user, so any single one may be read too. */
export async function getUser({ s, params }: RouteContext<unknown, unknown, IdParams>) {
  return presentUserAdmin(await liveUser(s, params.id));
}

/** POST /api/user/: always a common user with the new-user quota (role and quota are not inputs). */
export async function createUser({ s, caller, ip, body }: RouteContext<UserCreateInput, unknown, unknown>) {
  if (await s.repos.users.usernameTaken(body.username)) {
    throw ApiError.conflict('This username is already taken', ErrorCode.usernameTaken);
  }
  await requireUsableGroup(s, body.group);
  const passwordHash = await s.passwords.hash(body.password);
  const now = s.clock.nowSeconds();
  const quota = s.options.current.QuotaForNewUser;
  for (let attempt = 0; ; attempt++) {
    try {
      const { id } = await s.repos.users.insertWithRewards(
        newUserRow({
          username: body.username,
          password_hash: passwordHash,
          display_name: body.display_name || body.username,
          role: Role.Common,
          quota,
          group: body.group,
          aff_code: newAffCode(),
          created_time: now,
        }),
        undefined,
        (userId) =>
          signupCreditLogs(
            now,
            { id: userId, username: body.username },
            { newUserQuota: quota, inviteeQuota: 0 },
          ),
      );
      await audit(
        s,
        caller,
        ip,
        'user.create',
        { type: 'user', id },
        { username: body.username, group: body.group },
      );
      return presentUserAdmin(await liveUser(s, id));
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      if (await s.repos.users.usernameTaken(body.username)) {
        throw ApiError.conflict('This username is already taken', ErrorCode.usernameTaken);
      }
      // Otherwise the invite code collided: draw another.
      if (attempt >= 3) throw err;
    }
  }
}

/**
 * PUT /api/user/: username, display name, email, group and password. Never quota, role or status
 * (those have their own calls, with their own rules and records).
 */
export async function updateUser({ s, caller, ip, body }: RouteContext<UserUpdateInput, unknown, unknown>) {
  const target = await liveUser(s, body.id);
  requireOutranks(caller!.user, target);
  const patch: UserPatch = {};
  const changed: string[] = [];
  if (body.username !== target.username) {
    if (await s.repos.users.usernameTaken(body.username)) {
      throw ApiError.conflict('This username is already taken', ErrorCode.usernameTaken);
    }
    patch.username = body.username;
    changed.push('username');
  }
  if (body.display_name !== undefined && body.display_name !== target.display_name) {
    patch.display_name = body.display_name;
    changed.push('display_name');
  }
  if (body.email !== undefined && body.email !== target.email) {
    const holder = body.email ? await s.repos.users.byEmail(body.email) : undefined;
    if (holder && holder.id !== target.id) {
      throw ApiError.conflict('This email address is already registered', ErrorCode.emailTaken);
    }
    patch.email = body.email;
    changed.push('email');
  }
  if (body.group !== target.group) {
    await requireUsableGroup(s, body.group);
    patch.group = body.group;
    changed.push('group');
  }
  const changingPassword = body.password !== undefined && body.password !== '';
  if (changingPassword) {
    patch.password_hash = await s.passwords.hash(body.password!);
    changed.push('password');
  }
  if (changed.length > 0) {
    let ok: boolean;
    try {
      ok = await s.repos.users.updateIfRole(target.id, target.role, patch);
    } catch (err) {
      if (isUniqueViolation(err))
        throw ApiError.conflict('This username is already taken', ErrorCode.usernameTaken);
      throw err;
    }
    if (!ok) throw changedMeanwhile();
    // A new password signs the user out everywhere, as a reset does.
    await announce(s, target.id, changingPassword);
    await audit(
      s,
      caller,
      ip,
      'user.update',
      { type: 'user', id: target.id },
      {
        changed,
        ...(patch.username ? { from: target.username, to: patch.username } : {}),
        ...(patch.group ? { group: patch.group } : {}),
      },
    );
  }
  return presentUserAdmin(await liveUser(s, target.id));
}

/** `<name>_del_<6 random>`: the row keeps a unique name and the old one is free again. */
function deletedUsername(username: string): string {
  return `${username}_del_${randomBytes(3).toString('hex')}`;
}

async function applyAction(
  s: Services,
  caller: UserRow,
  target: UserRow,
  action: UserManageAction,
): Promise<UserManageResult> {
  const set = async (patch: UserPatch, endSessions: boolean) => {
    if (!(await s.repos.users.updateIfRole(target.id, target.role, patch))) throw changedMeanwhile();
    await announce(s, target.id, endSessions);
  };
  switch (action) {
    case 'enable':
      requireOutranks(caller, target);
      if (target.status !== UserStatus.Enabled) await set({ status: UserStatus.Enabled }, false);
      return { role: target.role, status: UserStatus.Enabled };
    case 'disable':
      refuseOnRoot(target, 'disabled');
      requireOutranks(caller, target);
      if (target.status !== UserStatus.Disabled) await set({ status: UserStatus.Disabled }, true);
      return { role: target.role, status: UserStatus.Disabled };
    case 'delete': {
      refuseOnRoot(target, 'deleted');
      requireOutranks(caller, target);
      const now = s.clock.nowSeconds();
      for (let attempt = 0; ; attempt++) {
        try {
          const deleted = await s.repos.users.softDelete(
            target.id,
            target.role,
            deletedUsername(target.username),
            now,
          );
          if (!deleted) throw changedMeanwhile();
          break;
        } catch (err) {
          // The random suffix collided with another deleted row's name: draw again.
          if (!isUniqueViolation(err) || attempt >= 3) throw err;
        }
      }
      await announce(s, target.id, true);
      return { role: target.role, status: target.status };
    }
    case 'promote':
      if (caller.role !== Role.Root) throw ApiError.forbidden('Only the root user can make administrators');
      if (target.role >= Role.Admin) throw ApiError.conflict('This user is already an administrator');
      await set({ role: Role.Admin }, false);
      return { role: Role.Admin, status: target.status };
    case 'demote':
      refuseOnRoot(target, 'demoted');
      requireOutranks(caller, target);
      if (target.role <= Role.Common) throw ApiError.conflict('This user is not an administrator');
      await set({ role: Role.Common }, false);
      return { role: Role.Common, status: target.status };
  }
}

/** POST /api/user/manage: enable, disable, delete, promote or demote one user. */
export async function manageUser({ s, caller, ip, body }: RouteContext<UserManageInput, unknown, unknown>) {
  const target =
    body.id !== undefined
      ? await s.repos.users.byId(body.id)
      : await s.repos.users.byUsername(body.username ?? '');
  if (!target) throw ApiError.notFound('User not found');
  const result = await applyAction(s, caller!.user, target, body.action);
  await audit(
    s,
    caller,
    ip,
    `user.${body.action}`,
    { type: 'user', id: target.id },
    { username: target.username, ...result },
  );
  return result;
}

/**
 * DELETE /api/user/:id: the soft delete of `manage`, answered honestly (one-hub answers nothing on
 * success).
 */
export async function deleteUser({ s, caller, ip, params }: RouteContext<unknown, unknown, IdParams>) {
  const target = await liveUser(s, params.id);
  await applyAction(s, caller!.user, target, 'delete');
  await audit(s, caller, ip, 'user.delete', { type: 'user', id: target.id }, { username: target.username });
  return null;
}

/**
 * POST /api/user/quota/:id: adds or deducts quota with a remark. One conditional update, so no
 * number of concurrent deductions takes the balance below zero; the manage log is written in the
 * same transaction.
 */
export async function adjustUserQuota({
  s,
  caller,
  ip,
  params,
  body,
}: RouteContext<UserQuotaInput, unknown, IdParams>) {
  const target = await liveUser(s, params.id);
  requireOutranks(caller!.user, target);
  const delta = body.quota;
  const now = s.clock.nowSeconds();
  const verb = delta > 0 ? 'added' : 'deducted';
  const outcome = await s.repos.users.adjustQuota(target.id, delta, (balance) =>
    balanceLogRow({
      user_id: target.id,
      username: target.username,
      type: LogType.Manage,
      content: `An administrator ${verb} ${Math.abs(delta)} quota${body.remark ? `; remark: ${body.remark}` : ''}`,
      quota: delta,
      created_at: now,
      // The administrator's address stays in the audit log: users read their own logs.
      metadata: JSON.stringify({
        remark: body.remark,
        balance,
        event: { kind: 'admin_quota', ...(body.remark ? { remark: body.remark } : {}) } satisfies LogEvent,
      }),
    }),
  );
  if (!outcome.ok) {
    if (outcome.reason === 'not_found') throw ApiError.notFound('User not found');
    if (outcome.reason === 'too_large')
      throw ApiError.conflict('The balance would exceed the largest quota allowed');
    throw ApiError.conflict(BALANCE_EXCEEDED, ErrorCode.insufficientQuota);
  }
  // The user's quota leases went back: every node stops reserving against them.
  await announce(s, target.id, false);
  await audit(
    s,
    caller,
    ip,
    'user.quota',
    { type: 'user', id: target.id },
    { username: target.username, quota: delta, remark: body.remark, balance: outcome.quota },
  );
  return { quota: outcome.quota };
}

/** GET /api/user/aff: the caller's invite code, created on first use for accounts that have none. */
export async function getAffCode({ s, caller }: RouteContext<unknown, unknown, unknown>) {
  return affCodeOf(s, caller!.user);
}

/** The user's invite code, created on first use (the console's invite card and the bot's /aff). */
export async function affCodeOf(s: Services, user: { id: number; aff_code: string }): Promise<string> {
  if (user.aff_code) return user.aff_code;
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await s.repos.users.setAffCodeIfMissing(user.id, newAffCode());
      break;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }
  const fresh = await liveUser(s, user.id);
  if (!fresh.aff_code)
    throw new ApiError(500, ErrorCode.internal, 'Could not create an invite code; try again');
  return fresh.aff_code;
}

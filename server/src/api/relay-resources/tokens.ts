import {
  ErrorCode,
  NEVER_EXPIRES,
  PLAYGROUND_TOKEN_NAME,
  type TokenCreateInput,
  TokenStatus,
  tokenCreateInput,
  tokenStatusInput,
  tokenUpdateInput,
} from '@switchyard/domain';
import { z } from 'zod';
import { newApiKey, sealApiKey, unsealApiKey } from '../../auth/api-keys.js';
import { newTokenRow, TOKEN_ORDERABLE, type TokenPatch, type TokenRow } from '../../db/queries/tokens.js';
import type { UserRow } from '../../db/tables.js';
import { ApiError } from '../../http/api-error.js';
import { type PageRequest, pageQuery, pageResult } from '../../http/pagination.js';
import type { RouteContext } from '../../http/route.js';
import type { Services } from '../../services.js';
import { type IdParams, invalidField, optionalText, parseBody } from '../validation.js';
import { presentCreatedToken, presentToken } from './token-presenter.js';

// Tokens: every route acts on the caller's own tokens only; another user's token
// answers 404 exactly like a missing one, so ids cannot be probed.

/** Topic on the change bus after a token changes, so a relay cache keyed by key hash drops it. */
export const TOKENS_TOPIC = 'tokens';

export const tokenListQuery = pageQuery(TOKEN_ORDERABLE).and(z.object({ keyword: optionalText }));
type ListQuery = PageRequest<(typeof TOKEN_ORDERABLE)[number]> & { keyword?: string | undefined };

export const tokenCreateBody = tokenCreateInput;
/** The body's shape depends on `?status_only=1`, so the handler validates it (same 400 answer). */
export const tokenUpdateBody = z.unknown();
export const tokenUpdateQuery = z.object({
  status_only: z
    .string()
    .optional()
    .transform((v) => v === '1' || v === 'true'),
});

async function checkGroup(s: Services, user: UserRow, group: string): Promise<void> {
  if (group === '') return;
  const g = await s.repos.userGroups.bySymbol(group);
  if (!g?.enable) throw invalidField('group', `Group "${group}" does not exist or is disabled`);
  if (!g.public && g.symbol !== user.group)
    throw new ApiError(403, ErrorCode.groupNotAllowed, `Your account may not use group "${group}"`);
}

/** Refuses to switch on a token that would be refused at once (expired or exhausted). */
function checkCanEnable(now: number, t: Pick<TokenRow, 'expired_time' | 'remain_quota' | 'unlimited_quota'>) {
  if (t.expired_time !== NEVER_EXPIRES && t.expired_time <= now) {
    throw new ApiError(
      409,
      ErrorCode.tokenExpired,
      'This token has expired: set a later expiry time (or never) before enabling it',
    );
  }
  if (t.unlimited_quota !== 1 && t.remain_quota <= 0) {
    throw new ApiError(
      409,
      ErrorCode.tokenExhausted,
      'This token has no quota left: add quota (or make it unlimited) before enabling it',
    );
  }
}

async function ownToken(s: Services, id: number, userId: number): Promise<TokenRow> {
  const row = await s.repos.tokens.byIdForUser(id, userId);
  if (!row) throw ApiError.notFound('Token not found');
  return row;
}

export async function listTokens({ s, caller, query }: RouteContext<unknown, ListQuery, unknown>) {
  const { rows, total } = await s.repos.tokens.listByUser(caller!.user.id, query.keyword, query);
  return pageResult(
    query,
    rows.map((r) => presentToken(r, s.secretBox)),
    total,
  );
}

export async function getToken({ s, caller, params }: RouteContext<unknown, unknown, IdParams>) {
  return presentToken(await ownToken(s, params.id, caller!.user.id), s.secretBox);
}

/** GET /api/token/:id/key: the full key again, to its owner only. */
export async function getTokenKey({ s, caller, params }: RouteContext<unknown, unknown, IdParams>) {
  return unsealApiKey(s.secretBox, (await ownToken(s, params.id, caller!.user.id)).key_sealed);
}

export { PLAYGROUND_TOKEN_NAME };

/**
 * GET /api/token/playground: the key of the caller's playground token, created on first use
 * (unlimited, never expires, the user's own group). Two first calls racing may both insert; the
 * oldest row then wins for both, and the other stays as an ordinary token the user can delete.
 */
export async function playgroundToken({ s, caller }: RouteContext<unknown, unknown, unknown>) {
  const user = caller!.user;
  let row = await s.repos.tokens.firstByNameForUser(user.id, PLAYGROUND_TOKEN_NAME);
  if (!row) {
    await s.repos.tokens.insert(
      newTokenRow({
        user_id: user.id,
        name: PLAYGROUND_TOKEN_NAME,
        ...sealApiKey(s.secretBox, newApiKey()),
        created_time: s.clock.nowSeconds(),
        unlimited_quota: 1,
      }),
    );
    row = await s.repos.tokens.firstByNameForUser(user.id, PLAYGROUND_TOKEN_NAME);
    if (!row) throw new Error('the playground token vanished right after its insert');
  }
  return unsealApiKey(s.secretBox, row.key_sealed);
}

export async function createToken({ s, caller, body }: RouteContext<TokenCreateInput, unknown, unknown>) {
  const user = caller!.user;
  const now = s.clock.nowSeconds();
  if (body.expired_time !== NEVER_EXPIRES && body.expired_time <= now)
    throw invalidField('expired_time', 'The expiry time must be in the future (or -1 for never)');
  await checkGroup(s, user, body.group);
  const key = newApiKey();
  const row: Omit<TokenRow, 'id'> = {
    user_id: user.id,
    name: body.name,
    ...sealApiKey(s.secretBox, key),
    status: TokenStatus.Enabled,
    created_time: now,
    accessed_time: 0,
    expired_time: body.expired_time,
    remain_quota: body.remain_quota,
    unlimited_quota: body.unlimited_quota ? 1 : 0,
    used_quota: 0,
    group: body.group,
    models: body.models ? JSON.stringify(body.models) : null,
    subnet: body.subnet,
    deleted_at: null,
  };
  const id = await s.repos.tokens.insert(row);
  return presentCreatedToken({ id, ...row }, s.secretBox, key);
}

export async function updateToken({
  s,
  caller,
  body,
  query,
}: RouteContext<unknown, { status_only: boolean }, unknown>) {
  const user = caller!.user;
  const now = s.clock.nowSeconds();
  let patch: TokenPatch;
  let id: number;
  if (query.status_only) {
    const input = parseBody(tokenStatusInput, body);
    id = input.id;
    const row = await ownToken(s, id, user.id);
    if (input.status === TokenStatus.Enabled && row.status !== TokenStatus.Enabled) checkCanEnable(now, row);
    patch = { status: input.status };
  } else {
    const input = parseBody(tokenUpdateInput, body);
    id = input.id;
    const row = await ownToken(s, id, user.id);
    // A group chosen earlier stays usable for edits of other fields; a new choice must be allowed.
    if (input.group !== row.group) await checkGroup(s, user, input.group);
    patch = {
      name: input.name,
      expired_time: input.expired_time,
      remain_quota: input.remain_quota,
      unlimited_quota: input.unlimited_quota ? 1 : 0,
      group: input.group,
      models: input.models ? JSON.stringify(input.models) : null,
      subnet: input.subnet,
    };
    if (input.status !== undefined) {
      if (input.status === TokenStatus.Enabled && row.status !== TokenStatus.Enabled)
        checkCanEnable(now, {
          expired_time: input.expired_time,
          remain_quota: input.remain_quota,
          unlimited_quota: input.unlimited_quota ? 1 : 0,
        });
      patch.status = input.status;
    }
  }
  if (!(await s.repos.tokens.updateForUser(id, user.id, patch))) throw ApiError.notFound('Token not found');
  await s.bus.publish(TOKENS_TOPIC);
  return presentToken(await ownToken(s, id, user.id), s.secretBox);
}

export async function deleteToken({ s, caller, params }: RouteContext<unknown, unknown, IdParams>) {
  const user = caller!.user;
  if (!(await s.repos.tokens.softDeleteForUser(params.id, user.id, s.clock.nowSeconds())))
    throw ApiError.notFound('Token not found');
  await s.bus.publish(TOKENS_TOPIC);
  return null;
}

import { randomBytes } from 'node:crypto';
import {
  ErrorCode,
  type RedemptionCreateInput,
  RedemptionStatus,
  redemptionCreateInput,
  redemptionStatusInput,
  redemptionUpdateInput,
  type TopupInput,
  topupInput,
} from '@switchyard/domain';
import { z } from 'zod';
import {
  type NewRedemption,
  REDEMPTION_ORDERABLE,
  type RedemptionChange,
  type RedemptionFilter,
  type RedemptionOrderColumn,
  type RedemptionRow,
} from '../../db/queries/redemptions.js';
import { ApiError } from '../../http/api-error.js';
import { type PageRequest, pageQuery, pageResult } from '../../http/pagination.js';
import type { RouteContext } from '../../http/route.js';
import type { Services } from '../../services.js';
import { audit } from '../audit.js';
import { type IdParams, optionalInt, optionalText, parseBody } from '../validation.js';
import { presentRedemption, presentRedemptionKey } from './redemption-presenter.js';

// Redemption codes (admin) and top-up by code (any user). Keys are
// 128-bit random, sealed at rest and found by their HMAC; they leave the server only in the create
// answer, through GET /api/redemption/:id/key and through the export, each reading audited.
// `user_id` is the administrator who created a code and `redeemed_by` who redeemed it (one-hub
// stores the creator only: docs/compatibility.md, "one-hub bugs not copied").

/** Most keys one export returns. */
export const REDEMPTION_EXPORT_MAX = 1000;

export const redemptionListQuery = pageQuery(REDEMPTION_ORDERABLE).and(
  z.object({ keyword: optionalText, status: optionalInt }),
);
type ListQuery = PageRequest<RedemptionOrderColumn> & {
  keyword?: string | undefined;
  status?: number | undefined;
};

/** The export's filter: by default the codes still unused, since those are the ones worth handing out. */
export const redemptionExportQuery = z.object({ keyword: optionalText, status: optionalInt });
type ExportQuery = { keyword?: string | undefined; status?: number | undefined };

export const redemptionCreateBody = redemptionCreateInput;
/** The body's shape depends on `?status_only=1`, so the handler validates it (same 400 answer). */
export const redemptionUpdateBody = z.unknown();
export const redemptionUpdateQuery = z.object({
  status_only: z
    .string()
    .optional()
    .transform((v) => v === '1' || v === 'true'),
});
export const topupBody = topupInput;

/** Keys are lowercase hex; a key pasted in capitals still matches. */
function keyHash(s: Services, key: string): string {
  return s.secretBox.mac(key.trim().toLowerCase());
}

async function redemption(s: Services, id: number): Promise<RedemptionRow> {
  const row = await s.repos.redemptions.byId(id);
  if (!row) throw ApiError.notFound('Redemption code not found');
  return row;
}

function unsealKey(s: Services, row: RedemptionRow): string {
  try {
    return s.secretBox.decrypt(row.key_sealed);
  } catch {
    throw new ApiError(
      500,
      ErrorCode.internal,
      `The key of code #${row.id} cannot be opened with this server's SECRET_KEY`,
    );
  }
}

function checkChange(change: RedemptionChange): void {
  if (change === 'missing') throw ApiError.notFound('Redemption code not found');
  if (change === 'used') throw ApiError.conflict('This code has already been redeemed and cannot be changed');
}

export async function listRedemptions({ s, query }: RouteContext<unknown, ListQuery, unknown>) {
  const filter: RedemptionFilter = {};
  if (query.keyword) filter.keyword = query.keyword;
  if (query.status) filter.status = query.status;
  const { rows, total } = await s.repos.redemptions.list(filter, query);
  return pageResult(query, rows.map(presentRedemption), total);
}

export async function getRedemption({ s, params }: RouteContext<unknown, unknown, IdParams>) {
  return presentRedemption(await redemption(s, params.id));
}

/** GET /api/redemption/:id/key: one code's key (the console's "copy"). */
export async function getRedemptionKey({ s, caller, ip, params }: RouteContext<unknown, unknown, IdParams>) {
  const row = await redemption(s, params.id);
  const key = unsealKey(s, row);
  await audit(s, caller, ip, 'redemption.key.view', { type: 'redemption', id: row.id }, { name: row.name });
  return key;
}

/** GET /api/redemption/export: keys of the matching codes (unused ones unless `status` says otherwise). */
export async function exportRedemptions({
  s,
  caller,
  ip,
  query,
}: RouteContext<unknown, ExportQuery, unknown>) {
  const filter: RedemptionFilter = { status: query.status ?? RedemptionStatus.Enabled };
  // status=0 asks for every state.
  if (filter.status === 0) delete filter.status;
  if (query.keyword) filter.keyword = query.keyword;
  const rows = await s.repos.redemptions.matching(filter, REDEMPTION_EXPORT_MAX);
  const out = rows.map((r) => presentRedemptionKey(r, unsealKey(s, r)));
  await audit(
    s,
    caller,
    ip,
    'redemption.export',
    // The audit target is one short column; the ids of a large export go in the detail.
    { type: 'redemption', id: '*' },
    {
      count: rows.length,
      keyword: query.keyword ?? '',
      status: filter.status ?? 0,
      ids: rows.map((r) => r.id),
    },
  );
  return out;
}

/** POST /api/redemption/: `count` new codes; the answer is their keys. */
export async function createRedemptions({
  s,
  caller,
  ip,
  body,
}: RouteContext<RedemptionCreateInput, unknown, unknown>) {
  const now = s.clock.nowSeconds();
  const keys = Array.from({ length: body.count }, () => randomBytes(16).toString('hex'));
  const rows: NewRedemption[] = keys.map((key) => ({
    user_id: caller!.user.id,
    key_hash: keyHash(s, key),
    key_sealed: s.secretBox.encrypt(key),
    status: RedemptionStatus.Enabled,
    name: body.name,
    quota: body.quota,
    created_time: now,
    redeemed_time: 0,
    redeemed_by: 0,
  }));
  const ids = await s.repos.redemptions.insertMany(rows);
  await audit(
    s,
    caller,
    ip,
    'redemption.create',
    { type: 'redemption', id: ids[0] ?? 0 },
    { name: body.name, quota: body.quota, count: ids.length, ids },
  );
  return keys;
}

/** PUT /api/redemption/: name and quota, or with `?status_only=1` the status, of an unused code. */
export async function updateRedemption({
  s,
  caller,
  ip,
  body,
  query,
}: RouteContext<unknown, { status_only: boolean }, unknown>) {
  if (query.status_only) {
    const input = parseBody(redemptionStatusInput, body);
    checkChange(await s.repos.redemptions.setStatus(input.id, input.status));
    await audit(
      s,
      caller,
      ip,
      input.status === RedemptionStatus.Enabled ? 'redemption.enable' : 'redemption.disable',
      { type: 'redemption', id: input.id },
    );
    return presentRedemption(await redemption(s, input.id));
  }
  const input = parseBody(redemptionUpdateInput, body);
  checkChange(await s.repos.redemptions.update(input.id, { name: input.name, quota: input.quota }));
  await audit(
    s,
    caller,
    ip,
    'redemption.update',
    { type: 'redemption', id: input.id },
    { name: input.name, quota: input.quota },
  );
  return presentRedemption(await redemption(s, input.id));
}

export async function deleteRedemption({ s, caller, ip, params }: RouteContext<unknown, unknown, IdParams>) {
  const row = await redemption(s, params.id);
  if (!(await s.repos.redemptions.delete(row.id))) throw ApiError.notFound('Redemption code not found');
  await audit(
    s,
    caller,
    ip,
    'redemption.delete',
    { type: 'redemption', id: row.id },
    { name: row.name, status: row.status },
  );
  return null;
}

/**
 * POST /api/user/topup: redeems a code for the caller, once even under concurrent attempts, and
 * answers with the quota added. Rate-limited like sign-in (the routes table), so keys cannot be
 * guessed by volume.
 */
export async function topup({ s, caller, ip, body }: RouteContext<TopupInput, unknown, unknown>) {
  return redeemForUser(s, caller!.user, body.key, ip);
}

/**
 * Redeems `key` for `user` (the top-up route and the messaging bot's /recharge): the quota added,
 * or an ApiError saying why not. `ip` is what the top-up log records as the source.
 */
export async function redeemForUser(
  s: Services,
  user: { id: number; username: string },
  key: string,
  ip: string,
): Promise<number> {
  const hash = keyHash(s, key);
  const result = await s.repos.redemptions.redeem(
    hash,
    { userId: user.id, username: user.username, ip },
    s.clock.nowSeconds(),
  );
  if (result.ok) return result.quota;
  if (result.reason === 'unknown')
    throw new ApiError(400, ErrorCode.redemptionInvalid, 'Invalid redemption code');
  // Lost to a concurrent redemption, used before, or switched off by an administrator.
  const row = await s.repos.redemptions.byKeyHash(hash);
  if (row?.status === RedemptionStatus.Disabled)
    throw ApiError.conflict('This redemption code is disabled', ErrorCode.redemptionDisabled);
  throw ApiError.conflict('This redemption code has already been used', ErrorCode.redemptionUsed);
}

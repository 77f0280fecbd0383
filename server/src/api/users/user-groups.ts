import {
  DEFAULT_GROUP,
  type UserGroupCreateInput,
  type UserGroupEnableInput,
  type UserGroupUpdateInput,
  userGroupCreateInput,
  userGroupEnableInput,
  userGroupUpdateInput,
} from '@switchyard/domain';
import { z } from 'zod';
import { isUniqueViolation } from '../../db/dialect.js';
import {
  type GroupUsage,
  USER_GROUP_ORDERABLE,
  type UserGroupFilter,
  type UserGroupOrderColumn,
} from '../../db/queries/user-groups.js';
import type { UserGroupRow } from '../../db/tables.js';
import { ApiError } from '../../http/api-error.js';
import { type PageRequest, pageQuery, pageResult } from '../../http/pagination.js';
import type { RouteContext } from '../../http/route.js';
import type { Services } from '../../services.js';
import { audit } from '../audit.js';
import { type IdParams, invalidField, optionalText } from '../validation.js';
import { presentUserGroup } from './user-group-presenter.js';

// User groups (all admin). The symbol is unique and never changes, because users,
// tokens and channels refer to it; `default` is where every user starts, so it can be neither
// disabled nor deleted; a group still referred to cannot be deleted. Every change is announced on
// the bus so each node's relay tables reload it (ratio, API rate, enable).

export const GROUPS_TOPIC = 'groups';

const optionalBool = z.preprocess(
  (v) => (v === '' || v === undefined ? undefined : v === '1' || v === 'true' || v === true),
  z.boolean().optional(),
);

export const userGroupListQuery = pageQuery(USER_GROUP_ORDERABLE).and(
  z.object({ name: optionalText, enable: optionalBool }),
);
type ListQuery = PageRequest<UserGroupOrderColumn> & {
  name?: string | undefined;
  enable?: boolean | undefined;
};

export const userGroupCreateBody = userGroupCreateInput;
export const userGroupUpdateBody = userGroupUpdateInput;
/** The console's switch sends no body: the call then flips the group. */
export const userGroupEnableBody = userGroupEnableInput.optional();

async function group(s: Services, id: number): Promise<UserGroupRow> {
  const row = await s.repos.userGroups.byId(id);
  if (!row) throw ApiError.notFound('Group not found');
  return row;
}

/** Announces the change and reloads this node's table before answering, so the next request sees it. */
async function changed(s: Services): Promise<void> {
  await s.bus.publish(GROUPS_TOPIC);
  await s.relay.tables.reloadGroups();
}

function refuseDisablingDefault(row: UserGroupRow, enable: boolean | undefined): void {
  if (row.symbol === DEFAULT_GROUP && enable === false)
    throw ApiError.conflict('The default group cannot be disabled');
}

function describeUsage(u: GroupUsage): string {
  const parts: string[] = [];
  const count = (n: number, one: string) => parts.push(`${n} ${one}${n === 1 ? '' : 's'}`);
  if (u.users > 0) count(u.users, 'user');
  if (u.tokens > 0) count(u.tokens, 'token');
  if (u.channels > 0) count(u.channels, 'channel');
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

export async function listUserGroups({ s, query }: RouteContext<unknown, ListQuery, unknown>) {
  const filter: UserGroupFilter = {};
  if (query.name) filter.name = query.name;
  if (query.enable !== undefined) filter.enable = query.enable;
  const { rows, total } = await s.repos.userGroups.list(filter, query);
  return pageResult(query, rows.map(presentUserGroup), total);
}

export async function getUserGroup({ s, params }: RouteContext<unknown, unknown, IdParams>) {
  return presentUserGroup(await group(s, params.id));
}

export async function createUserGroup({
  s,
  caller,
  ip,
  body,
}: RouteContext<UserGroupCreateInput, unknown, unknown>) {
  const exists = () => ApiError.conflict(`A group with the symbol "${body.symbol}" already exists`);
  if (await s.repos.userGroups.bySymbol(body.symbol)) throw exists();
  const row = {
    symbol: body.symbol,
    name: body.name,
    ratio: body.ratio,
    api_rate: body.api_rate,
    public: body.public ? 1 : 0,
    enable: body.enable ? 1 : 0,
  };
  let id: number;
  try {
    id = await s.repos.userGroups.insert(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw exists();
    throw err;
  }
  await changed(s);
  await audit(s, caller, ip, 'user_group.create', { type: 'user_group', id }, { ...row });
  return presentUserGroup({ id, ...row });
}

/** PUT /api/user_group/: name, ratio, API rate, public (and enable). The symbol cannot change. */
export async function updateUserGroup({
  s,
  caller,
  ip,
  body,
}: RouteContext<UserGroupUpdateInput, unknown, unknown>) {
  const row = await group(s, body.id);
  if (body.symbol !== undefined && body.symbol !== row.symbol)
    throw invalidField('symbol', 'The symbol of a group cannot be changed');
  refuseDisablingDefault(row, body.enable);
  const patch = {
    name: body.name,
    ratio: body.ratio,
    api_rate: body.api_rate,
    public: body.public ? 1 : 0,
    ...(body.enable !== undefined ? { enable: body.enable ? 1 : 0 } : {}),
  };
  await s.repos.userGroups.update(row.id, patch);
  await changed(s);
  await audit(
    s,
    caller,
    ip,
    'user_group.update',
    { type: 'user_group', id: row.id },
    { symbol: row.symbol, ...patch },
  );
  return presentUserGroup({ ...row, ...patch });
}

/** PUT /api/user_group/enable/:id: `{enable}` sets it; no body flips it. */
export async function setUserGroupEnable({
  s,
  caller,
  ip,
  params,
  body,
}: RouteContext<UserGroupEnableInput | undefined, unknown, IdParams>) {
  const row = await group(s, params.id);
  const enable = body?.enable ?? row.enable !== 1;
  refuseDisablingDefault(row, enable);
  await s.repos.userGroups.update(row.id, { enable: enable ? 1 : 0 });
  await changed(s);
  await audit(s, caller, ip, enable ? 'user_group.enable' : 'user_group.disable', {
    type: 'user_group',
    id: row.id,
  });
  return presentUserGroup({ ...row, enable: enable ? 1 : 0 });
}

export async function deleteUserGroup({ s, caller, ip, params }: RouteContext<unknown, unknown, IdParams>) {
  const row = await group(s, params.id);
  if (row.symbol === DEFAULT_GROUP) throw ApiError.conflict('The default group cannot be deleted');
  const usage = await s.repos.userGroups.usage(row.symbol);
  if (usage.users + usage.tokens + usage.channels > 0) {
    throw ApiError.conflict(
      `Group "${row.symbol}" is still used by ${describeUsage(usage)}; move them to another group first`,
    );
  }
  if (!(await s.repos.userGroups.delete(row.id))) throw ApiError.notFound('Group not found');
  await changed(s);
  await audit(s, caller, ip, 'user_group.delete', { type: 'user_group', id: row.id }, { symbol: row.symbol });
  return null;
}

/** GET /api/group/: the symbols of enabled groups, for the user form's group picker. */
export async function listGroupSymbols({ s }: RouteContext<unknown, unknown, unknown>) {
  return (await s.repos.userGroups.all()).filter((g) => g.enable === 1).map((g) => g.symbol);
}

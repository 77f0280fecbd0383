import {
  type BalanceResult,
  type BalanceUpdateReport,
  CHANNEL_KEYS_MAX,
  CHANNEL_NAME_MAX,
  ChannelStatus,
  channelFields,
  channelPlugin,
  ErrorCode,
  modelHeaders,
  modelNameProblem,
  providerById,
} from '@switchyard/domain';
import { z } from 'zod';
import type { ChannelPatch, ChannelRow, NewChannel } from '../../db/queries/channels.js';
import { ApiError } from '../../http/api-error.js';
import type { RouteContext } from '../../http/route.js';
import { BalanceUnsupportedError, balanceSupported, fetchBalance } from '../../providers/openai/balance.js';
import { fetchModelList } from '../../providers/openai/models-list.js';
import { customPathsFromPlugin, parseModelHeaders } from '../../providers/openai/request.js';
import { UpstreamCallError } from '../../providers/openai/upstream-json.js';
import { ChannelConfigError } from '../../providers/upstream-request.js';
import { connectionSettings } from '../../relay/channels/channel-transports.js';
import type { Services } from '../../services.js';
import { audit } from '../audit.js';
import { type IdParams, invalidField } from '../validation.js';
import { presentChannel } from './channel-presenter.js';
import { CHANNELS_TOPIC, checkBaseUrl, checkGroupsExist, keyLines, liveChannel } from './channels.js';

// Channel tools (all admin): whole-tag edits, batch operations, the upstream's model
// list, balances and copies. Every change is announced on the bus (each node rebuilds its routing
// table) and recorded in the audit log; keys never leave in an answer.

/** Stable code of a failure on the upstream's side (its model list, its balance). */

const upstreamFailure = (what: string, err: UpstreamCallError) =>
  new ApiError(502, ErrorCode.upstreamError, `${what}: ${err.message}`);

// ---- Tags ---------------------------------------------------------------------------------------

export const tagParams = z.object({
  tag: z.string().trim().min(1, 'Tag is required').max(64, 'Tag must be at most 64 characters'),
});
export type TagParams = z.infer<typeof tagParams>;

export const tagStatusParams = tagParams.extend({
  status: z.enum(['enable', 'disable'], { error: 'status must be "enable" or "disable"' }),
});

export const tagPriorityBody = z.strictObject({
  type: z.literal('priority', { error: 'type must be "priority"' }).default('priority'),
  value: z
    .number({ error: 'value must be a whole number' })
    .int('value must be a whole number')
    .min(0, 'Priority cannot be below 0'),
});

/**
 * PUT /api/channel_tag/:tag: the settings every member shares. A field left out keeps each member's
 * value. `key` (one per line) is the tag's whole key set: members whose key is not in it are
 * deleted, keys no member has become new members named `<name>_<n>`; empty keeps the keys. `name`
 * only names new members.
 */
export const tagEditBody = z.strictObject({
  name: channelFields.name.optional(),
  key: channelFields.key.optional(),
  base_url: channelFields.base_url.optional(),
  other: channelFields.other.optional(),
  models: channelFields.models.optional(),
  group: channelFields.group.optional(),
  tag: channelFields.tag.optional(),
  model_mapping: channelFields.model_mapping.optional(),
  model_headers: channelFields.model_headers.optional(),
  custom_parameter: channelFields.custom_parameter.optional(),
  proxy: channelFields.proxy.optional(),
  test_model: channelFields.test_model.optional(),
  only_chat: channelFields.only_chat.optional(),
  pre_cost: channelFields.pre_cost.optional(),
  plugin: channelFields.plugin.optional(),
});
export type TagEditBody = z.infer<typeof tagEditBody>;

async function tagMembers(s: Services, tag: string): Promise<ChannelRow[]> {
  const members = await s.repos.channels.byTag(tag);
  if (members.length === 0) throw ApiError.notFound(`No channel has the tag "${tag}"`);
  return members;
}

/** GET /api/channel_tag/_all: each tag with how many channels carry it and how many are enabled. */
export async function listTags({ s }: RouteContext<unknown, unknown, unknown>) {
  return s.repos.channels.tags();
}

/** GET /api/channel_tag/:tag/list: the tag's channels, oldest first. */
export async function listTagChannels({ s, params }: RouteContext<unknown, unknown, TagParams>) {
  return (await tagMembers(s, params.tag)).map(presentChannel);
}

/** GET /api/channel_tag/:tag: the shared settings (those of the oldest member) for the tag form. */
export async function getTag({ s, params }: RouteContext<unknown, unknown, TagParams>) {
  const members = await tagMembers(s, params.tag);
  return { ...presentChannel(members[0]!), count: members.length };
}

function sharedPatch(body: TagEditBody): ChannelPatch {
  const patch: ChannelPatch = {};
  if (body.base_url !== undefined) patch.base_url = body.base_url;
  if (body.other !== undefined) patch.other = body.other;
  if (body.models !== undefined) patch.models = body.models.join(',');
  if (body.group !== undefined) patch.group = body.group.join(',');
  if (body.tag !== undefined) patch.tag = body.tag;
  if (body.model_mapping !== undefined) patch.model_mapping = JSON.stringify(body.model_mapping);
  if (body.model_headers !== undefined) patch.model_headers = JSON.stringify(body.model_headers);
  if (body.custom_parameter !== undefined) patch.custom_parameter = JSON.stringify(body.custom_parameter);
  if (body.proxy !== undefined) patch.proxy = body.proxy;
  if (body.test_model !== undefined) patch.test_model = body.test_model;
  if (body.only_chat !== undefined) patch.only_chat = body.only_chat ? 1 : 0;
  if (body.pre_cost !== undefined) patch.pre_cost = body.pre_cost;
  if (body.plugin !== undefined) patch.plugin = JSON.stringify(body.plugin);
  return patch;
}

interface KeyDiff {
  remove: ChannelRow[];
  add: string[];
}

/**
 * Which members leave and which keys arrive. Keys are compared by HMAC of the opened key (they are
 * sealed with random IVs). A member whose key cannot be opened (sealed under another SECRET_KEY) is
 * never deleted by a diff: what cannot be read cannot be said to be absent.
 */
function diffKeys(s: Services, members: readonly ChannelRow[], wanted: readonly string[]): KeyDiff {
  const wantedMacs = new Map<string, string>();
  for (const key of wanted) wantedMacs.set(s.secretBox.mac(key), key);
  const haveMacs = new Set<string>();
  const remove: ChannelRow[] = [];
  for (const m of members) {
    let mac: string;
    try {
      mac = s.secretBox.mac(s.secretBox.decrypt(m.key_sealed));
    } catch {
      continue;
    }
    haveMacs.add(mac);
    if (!wantedMacs.has(mac)) remove.push(m);
  }
  const add = [...wantedMacs].filter(([mac]) => !haveMacs.has(mac)).map(([, key]) => key);
  return { remove, add };
}

/** `<base>_<n>` names not used by the kept members, counting on from their number. */
function newMemberNames(base: string, kept: readonly ChannelRow[], count: number): string[] {
  const stem = base.slice(0, CHANNEL_NAME_MAX - 6);
  const taken = new Set(kept.map((m) => m.name));
  const names: string[] = [];
  for (let n = kept.length + 1; names.length < count; n++) {
    const name = `${stem}_${n}`;
    if (!taken.has(name)) names.push(name);
  }
  return names;
}

/** PUT /api/channel_tag/:tag: shared fields copied to every member, keys diffed, all in one transaction. */
export async function editTag({
  s,
  caller,
  ip,
  params,
  body,
}: RouteContext<TagEditBody, unknown, TagParams>) {
  const members = await tagMembers(s, params.tag);
  const first = members[0]!;
  const provider = providerById(first.type);
  if (body.base_url?.includes('\n')) throw invalidField('base_url', 'A tag shares one base URL');
  if (provider) checkBaseUrl(provider, body.base_url ?? first.base_url);
  if (body.group !== undefined) await checkGroupsExist(s, body.group);
  const patch = sharedPatch(body);

  let diff: KeyDiff = { remove: [], add: [] };
  if (body.key !== undefined && body.key.trim() !== '') {
    const wanted = provider ? keyLines(provider, body.key) : [body.key.trim()];
    if (wanted.length > CHANNEL_KEYS_MAX)
      throw invalidField('key', `At most ${CHANNEL_KEYS_MAX} keys (channels) per tag`);
    diff = diffKeys(s, members, wanted);
  }
  const removed = new Set(diff.remove.map((m) => m.id));
  const kept = members.filter((m) => !removed.has(m.id));
  const now = s.clock.nowSeconds();
  const names = newMemberNames(body.name ?? first.name, kept, diff.add.length);
  const insert: NewChannel[] = diff.add.map((key, i) => {
    const { id: _id, ...template } = first;
    return {
      ...template,
      ...patch,
      name: names[i]!,
      key_sealed: s.secretBox.encrypt(key),
      tag: patch.tag ?? params.tag,
      status: ChannelStatus.Enabled,
      created_time: now,
      test_time: 0,
      response_time: 0,
      balance: 0,
      balance_updated_time: 0,
      used_quota: 0,
      deleted_at: null,
    };
  });

  const added = await s.repos.channels.applyTagEdit({
    tag: params.tag,
    patch,
    deleteIds: diff.remove.map((m) => m.id),
    insert,
    now,
  });
  await s.bus.publish(CHANNELS_TOPIC);
  await audit(
    s,
    caller,
    ip,
    'channel.tag.update',
    { type: 'channel_tag', id: params.tag },
    {
      fields: Object.keys(body).filter((k) => k !== 'key'),
      added: added.length,
      removed: diff.remove.map((m) => m.id),
      ...(patch.tag !== undefined && patch.tag !== params.tag ? { renamed_to: patch.tag } : {}),
    },
  );
  const after = await s.repos.channels.byIds([...kept.map((m) => m.id), ...added]);
  return { added, removed: diff.remove.map((m) => m.id), channels: after.map(presentChannel) };
}

/** DELETE /api/channel_tag/:tag: deletes every member; `data` = how many. */
export async function deleteTag({ s, caller, ip, params }: RouteContext<unknown, unknown, TagParams>) {
  const members = await tagMembers(s, params.tag);
  const deleted = await s.repos.channels.softDeleteMany(
    members.map((m) => m.id),
    s.clock.nowSeconds(),
  );
  await s.bus.publish(CHANNELS_TOPIC);
  await audit(s, caller, ip, 'channel.tag.delete', { type: 'channel_tag', id: params.tag }, { deleted });
  return deleted;
}

/** DELETE /api/channel_tag/:tag/disabled: deletes the members disabled by hand or automatically. */
export async function deleteDisabledInTag({
  s,
  caller,
  ip,
  params,
}: RouteContext<unknown, unknown, TagParams>) {
  await tagMembers(s, params.tag);
  const ids = await s.repos.channels.disabledIds(params.tag);
  const deleted = await s.repos.channels.softDeleteMany(ids, s.clock.nowSeconds());
  if (deleted > 0) await s.bus.publish(CHANNELS_TOPIC);
  await audit(
    s,
    caller,
    ip,
    'channel.tag.delete_disabled',
    { type: 'channel_tag', id: params.tag },
    { deleted: ids },
  );
  return deleted;
}

/** PUT /api/channel_tag/:tag/priority `{type:"priority", value}`: one priority for every member. */
export async function setTagPriority({
  s,
  caller,
  ip,
  params,
  body,
}: RouteContext<z.infer<typeof tagPriorityBody>, unknown, TagParams>) {
  const members = await tagMembers(s, params.tag);
  const updated = await s.repos.channels.updateMany(
    members.map((m) => m.id),
    { priority: body.value },
  );
  await s.bus.publish(CHANNELS_TOPIC);
  await audit(
    s,
    caller,
    ip,
    'channel.tag.priority',
    { type: 'channel_tag', id: params.tag },
    { priority: body.value, updated },
  );
  return updated;
}

/** PUT /api/channel_tag/:tag/status/:status: enables (1) or disables (2) every member. */
export async function setTagStatus({
  s,
  caller,
  ip,
  params,
}: RouteContext<unknown, unknown, z.infer<typeof tagStatusParams>>) {
  const members = await tagMembers(s, params.tag);
  const status = params.status === 'enable' ? ChannelStatus.Enabled : ChannelStatus.ManuallyDisabled;
  const updated = await s.repos.channels.updateMany(
    members.map((m) => m.id),
    { status },
  );
  await s.bus.publish(CHANNELS_TOPIC);
  await audit(
    s,
    caller,
    ip,
    `channel.tag.${params.status}`,
    { type: 'channel_tag', id: params.tag },
    { updated },
  );
  return updated;
}

// ---- Batch operations ---------------------------------------------------------------------------

const SELECT_ONE = 'Please select at least one channel';
const BATCH_MAX = 1000;

const channelIds = z
  .array(
    z
      .number({ error: 'ids must be channel ids' })
      .int('ids must be channel ids')
      .positive('ids must be channel ids'),
    {
      error: SELECT_ONE,
    },
  )
  .min(1, SELECT_ONE)
  .max(BATCH_MAX, `At most ${BATCH_MAX} channels at once`)
  .transform((ids) => [...new Set(ids)]);

// `value` is part of one-hub's batch body but unused by a delete.
export const batchDeleteBody = z.object({ ids: channelIds, value: z.unknown().optional() });
export const batchApiVersionBody = z.object({
  ids: channelIds,
  value: z
    .string({ error: 'API version is required' })
    .trim()
    .min(1, 'API version is required')
    .max(4000, 'API version must be at most 4000 characters'),
});
export const batchDeleteModelBody = z.object({
  ids: channelIds,
  value: z
    .string({ error: 'Model name is required' })
    .trim()
    .min(1, 'Model name is required')
    .refine((m) => modelNameProblem(m) === null, { message: 'Not a model name' }),
});

/** DELETE /api/channel/batch `{ids}`: `data` = how many were deleted. */
export async function deleteChannels({
  s,
  caller,
  ip,
  body,
}: RouteContext<z.infer<typeof batchDeleteBody>, unknown, unknown>) {
  const deleted = await s.repos.channels.softDeleteMany(body.ids, s.clock.nowSeconds());
  if (deleted > 0) await s.bus.publish(CHANNELS_TOPIC);
  await audit(
    s,
    caller,
    ip,
    'channel.batch_delete',
    { type: 'channel', id: body.ids.join(',') },
    { deleted },
  );
  return deleted;
}

/** DELETE /api/channel/disabled: deletes every channel disabled by hand or automatically. */
export async function deleteDisabledChannels({ s, caller, ip }: RouteContext<unknown, unknown, unknown>) {
  const ids = await s.repos.channels.disabledIds();
  const deleted = await s.repos.channels.softDeleteMany(ids, s.clock.nowSeconds());
  if (deleted > 0) await s.bus.publish(CHANNELS_TOPIC);
  await audit(s, caller, ip, 'channel.delete_disabled', { type: 'channel', id: ids.join(',') }, { deleted });
  return deleted;
}

/** PUT /api/channel/batch/azure_api `{ids, value}`: sets `other` (Azure's api-version) on each. */
export async function setChannelsApiVersion({
  s,
  caller,
  ip,
  body,
}: RouteContext<z.infer<typeof batchApiVersionBody>, unknown, unknown>) {
  const updated = await s.repos.channels.updateMany(body.ids, { other: body.value });
  if (updated > 0) await s.bus.publish(CHANNELS_TOPIC);
  await audit(
    s,
    caller,
    ip,
    'channel.batch_api_version',
    { type: 'channel', id: body.ids.join(',') },
    { value: body.value, updated },
  );
  return updated;
}

/**
 * PUT /api/channel/batch/del_model `{ids, value}`: removes one model from each channel's list. A
 * channel must keep at least one model, so a removal that would empty one refuses the whole batch.
 */
export async function removeModelFromChannels({
  s,
  caller,
  ip,
  body,
}: RouteContext<z.infer<typeof batchDeleteModelBody>, unknown, unknown>) {
  const rows = await s.repos.channels.byIds(body.ids);
  const changes: { id: number; patch: ChannelPatch }[] = [];
  const emptied: string[] = [];
  for (const row of rows) {
    const models = row.models
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    if (!models.includes(body.value)) continue;
    const rest = models.filter((m) => m !== body.value);
    if (rest.length === 0) emptied.push(`${row.name} (#${row.id})`);
    changes.push({ id: row.id, patch: { models: rest.join(',') } });
  }
  if (emptied.length > 0)
    throw invalidField(
      'value',
      `Removing "${body.value}" would leave these channels without models: ${emptied.join(', ')}`,
    );
  await s.repos.channels.updateEach(changes);
  if (changes.length > 0) await s.bus.publish(CHANNELS_TOPIC);
  await audit(
    s,
    caller,
    ip,
    'channel.batch_remove_model',
    { type: 'channel', id: changes.map((c) => c.id).join(',') },
    { model: body.value },
  );
  return changes.length;
}

// ---- Upstream model list ------------------------------------------------------------------------

/**
 * POST /api/channel/provider_models_list: the channel form as it stands (unknown fields are
 * ignored). With an empty key and an id, the stored channel supplies its key and any field left out.
 */
export const providerModelsBody = z.object({
  id: z.number().int().positive().optional(),
  type: channelFields.type.optional(),
  key: channelFields.key.optional(),
  base_url: channelFields.base_url.optional(),
  other: channelFields.other.optional(),
  model_headers: modelHeaders.optional(),
  plugin: channelPlugin.optional(),
  proxy: channelFields.proxy.optional(),
});

const firstLine = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean) ?? '';

export async function providerModels({
  s,
  caller,
  ip,
  body,
}: RouteContext<z.infer<typeof providerModelsBody>, unknown, unknown>) {
  const formKey = firstLine(body.key ?? '');
  // Only a form without a key depends on the stored channel; one with a key may be a new channel's.
  const stored =
    body.id === undefined
      ? undefined
      : formKey === ''
        ? await liveChannel(s, body.id)
        : await s.repos.channels.byId(body.id);
  const type = body.type ?? stored?.type;
  if (type === undefined) throw invalidField('type', 'Channel type is required');
  const provider = providerById(type);
  if (!provider || (provider.protocol !== 'openai' && provider.protocol !== 'azure'))
    throw invalidField(
      'type',
      `Fetching the model list is not supported for ${provider?.name ?? `type ${type}`} channels`,
    );
  const storedKey = formKey === '' && stored ? firstLine(s.secretBox.decrypt(stored.key_sealed)) : '';
  const headers = body.model_headers ?? (stored ? parseModelHeaders(stored.model_headers) : {});
  const plugin = body.plugin ?? (stored ? safeJson(stored.plugin) : {});
  const baseUrl = firstLine(body.base_url ?? stored?.base_url ?? '');
  if (stored && storedKey && baseUrl !== stored.base_url) {
    // The stored key goes to an address the channel does not use: as telling as reading the key.
    await audit(s, caller, ip, 'channel.key.send', { type: 'channel', id: stored.id }, { base_url: baseUrl });
  }
  try {
    // The channel's proxy and private CA, as its calls use them (the form's values before the stored ones).
    const route = connectionSettings(plugin, body.proxy ?? stored?.proxy ?? '');
    return await fetchModelList(s.relay.upstream.for(route), {
      type,
      baseUrl,
      key: formKey || storedKey,
      other: body.other ?? stored?.other ?? '',
      headers: parseModelHeaders(JSON.stringify(headers)),
      paths: customPathsFromPlugin(plugin),
    });
  } catch (err) {
    if (err instanceof ChannelConfigError) throw invalidField('base_url', err.message);
    if (err instanceof UpstreamCallError) throw upstreamFailure('Failed to get model list', err);
    throw err;
  }
}

function safeJson(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text || '{}') as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

// ---- Balances -----------------------------------------------------------------------------------

export interface BalanceUpdate {
  id: number;
  name: string;
  balance: number;
  currency: string;
  balance_updated_time: number;
  /** The balance was at or below zero and automatic disabling is on: the channel was disabled. */
  disabled: boolean;
}

/** Asks the vendor, stores balance and time, and disables an enabled channel with nothing left. */
async function refreshBalance(s: Services, row: ChannelRow): Promise<BalanceUpdate> {
  const now = s.clock.nowSeconds();
  const { amount, currency } = await fetchBalance(
    s.relay.upstream.for(connectionSettings(safeJson(row.plugin), row.proxy)),
    { type: row.type, baseUrl: row.base_url, key: firstLine(s.secretBox.decrypt(row.key_sealed)) },
    now,
  );
  const patch: ChannelPatch = { balance: amount, balance_updated_time: now };
  const disable =
    amount <= 0 && s.options.current.AutomaticDisableChannelEnabled && row.status === ChannelStatus.Enabled;
  if (disable) patch.status = ChannelStatus.AutoDisabled;
  await s.repos.channels.update(row.id, patch);
  return {
    id: row.id,
    name: row.name,
    balance: amount,
    currency,
    balance_updated_time: now,
    disabled: disable,
  };
}

/** GET /api/channel/update_balance/:id */
export async function updateChannelBalance({ s, params }: RouteContext<unknown, unknown, IdParams>) {
  const row = await liveChannel(s, params.id);
  if (!balanceSupported(row.type))
    throw ApiError.badRequest(
      `Balance query is not supported for ${providerById(row.type)?.name ?? `type ${row.type}`} channels`,
    );
  try {
    const result = await refreshBalance(s, row);
    await s.bus.publish(CHANNELS_TOPIC);
    return result;
  } catch (err) {
    if (err instanceof BalanceUnsupportedError) throw ApiError.badRequest(err.message);
    if (err instanceof UpstreamCallError) throw upstreamFailure('Balance query failed', err);
    throw err;
  }
}

const BALANCE_CONCURRENCY = 5;

/** GET /api/channel/update_balance: every enabled channel whose vendor has a balance query. */
export async function updateAllBalances({ s }: RouteContext<unknown, unknown, unknown>) {
  const rows = (await s.repos.channels.allLive()).filter(
    (c) => c.status === ChannelStatus.Enabled && balanceSupported(c.type),
  );
  const results: BalanceResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const row = rows[next++]!;
      try {
        results.push(await refreshBalance(s, row));
      } catch (err) {
        // Each failure says why, with the code the console translates; one never hides the others.
        const code =
          err instanceof UpstreamCallError
            ? ErrorCode.upstreamError
            : err instanceof BalanceUnsupportedError
              ? ErrorCode.invalidRequest
              : ErrorCode.internal;
        results.push({ id: row.id, name: row.name, error: (err as Error).message, code });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BALANCE_CONCURRENCY, rows.length) }, worker));
  results.sort((a, b) => a.id - b.id);
  const updated = results.filter((r) => !('error' in r)).length;
  if (updated > 0) await s.bus.publish(CHANNELS_TOPIC);
  const report: BalanceUpdateReport = {
    updated,
    failed: results.length - updated,
    disabled: results.filter((r) => 'disabled' in r && r.disabled).length,
    results,
  };
  return report;
}

// ---- Copy ---------------------------------------------------------------------------------------

/** POST /api/channel/:id/copy: a new channel `<name>_copy` with the same settings and key, fresh counters. */
export async function copyChannel({ s, caller, ip, params }: RouteContext<unknown, unknown, IdParams>) {
  const row = await liveChannel(s, params.id);
  const { id: _id, ...template } = row;
  const copy: NewChannel = {
    ...template,
    name: `${row.name.slice(0, CHANNEL_NAME_MAX - '_copy'.length)}_copy`,
    created_time: s.clock.nowSeconds(),
    test_time: 0,
    response_time: 0,
    balance: 0,
    balance_updated_time: 0,
    used_quota: 0,
    deleted_at: null,
  };
  const [id] = await s.repos.channels.insertMany([copy]);
  await s.bus.publish(CHANNELS_TOPIC);
  await audit(s, caller, ip, 'channel.copy', { type: 'channel', id: id! }, { from: row.id, name: copy.name });
  return presentChannel({ ...copy, id: id!, deleted_at: null });
}

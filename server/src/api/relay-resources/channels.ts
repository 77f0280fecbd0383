import {
  CHANNEL_KEYS_MAX,
  type ChannelCreateInput,
  type ChannelSettings,
  type ChannelUpdateInput,
  channelCreateInput,
  channelSettingProblems,
  channelUpdateInput,
  type ProviderDef,
  providerById,
  type SettingProblem,
} from '@switchyard/domain';
import { z } from 'zod';
import {
  CHANNEL_ORDERABLE,
  type ChannelFilter,
  type ChannelOrderColumn,
  type ChannelPatch,
  type NewChannel,
} from '../../db/queries/channels.js';
import { ApiError } from '../../http/api-error.js';
import { type PageRequest, pageQuery, pageResult } from '../../http/pagination.js';
import { type RouteContext, WithMessage } from '../../http/route.js';
import { testChannel, UntestableModelError } from '../../relay/channels/channel-tester.js';
import type { Services } from '../../services.js';
import { audit } from '../audit.js';
import { type IdParams, invalidField, optionalInt, optionalText } from '../validation.js';
import { presentChannel } from './channel-presenter.js';

// Channels (all admin). Keys are sealed at rest and leave the server through
// GET /api/channel/:id/key only; every change is announced on the bus so each node's routing table
// is rebuilt.

export const CHANNELS_TOPIC = 'channels';

export const channelListQuery = pageQuery(CHANNEL_ORDERABLE).and(
  z.object({
    type: optionalInt,
    status: optionalInt,
    name: optionalText,
    group: optionalText,
    models: optionalText,
    tag: optionalText,
    test_model: optionalText,
    key: z.preprocess((v) => (v === '' ? undefined : v), z.string().max(200_000).optional()),
  }),
);
type ListQuery = PageRequest<ChannelOrderColumn> & {
  type?: number | undefined;
  status?: number | undefined;
  name?: string | undefined;
  group?: string | undefined;
  models?: string | undefined;
  tag?: string | undefined;
  test_model?: string | undefined;
  key?: string | undefined;
};

export const channelCreateBody = channelCreateInput;
export const channelUpdateBody = channelUpdateInput;

export function selectableProvider(type: number): ProviderDef {
  const p = providerById(type);
  if (!p?.selectable) throw invalidField('type', `Channel type ${type} is not one that can be chosen`);
  return p;
}

/** Keys of one create call: one per non-empty line, except a JSON credential which spans lines. */
export function keyLines(provider: ProviderDef, key: string): string[] {
  const trimmed = key.trim();
  if (provider.protocol === 'vertex' || trimmed.startsWith('{')) return trimmed ? [trimmed] : [];
  return trimmed
    .split('\n')
    .map((k) => k.trim())
    .filter(Boolean);
}

export async function checkGroupsExist(s: Services, groups: readonly string[]): Promise<void> {
  const known = new Set((await s.repos.userGroups.all()).map((g) => g.symbol));
  const missing = groups.filter((g) => !known.has(g));
  if (missing.length > 0) throw invalidField('group', `No such group: ${missing.join(', ')}`);
}

export function checkBaseUrl(provider: ProviderDef, baseUrl: string): void {
  if (provider.baseUrlRequired && baseUrl === '')
    throw invalidField('base_url', `A base URL is required for ${provider.name} channels`);
}

/**
 * The type-specific checks of the catalog (key format, `other`, plugin fields), the same the
 * console shows beside the fields; `fields` limits them to what a call changes.
 */
export function checkChannelSettings(
  settings: ChannelSettings,
  fields: ReadonlySet<SettingProblem['field']> = new Set(['key', 'other', 'plugin']),
): void {
  const problem = channelSettingProblems(settings).find((p) => fields.has(p.field));
  if (problem) throw invalidField(problem.field, problem.message);
}

async function keyMatches(s: Services, filter: ChannelFilter, key: string): Promise<number[]> {
  // Channel keys are sealed with a random IV, so equality is decided here, by comparing HMACs of
  // the opened keys (constant-time in effect), over the channels the other filters leave.
  const wanted = s.secretBox.mac(key.trim());
  const ids: number[] = [];
  for (const row of await s.repos.channels.sealedKeys(filter)) {
    let key: string;
    try {
      key = s.secretBox.decrypt(row.key_sealed);
    } catch {
      continue; // sealed under another SECRET_KEY: it cannot match anything
    }
    if (s.secretBox.mac(key) === wanted) ids.push(row.id);
  }
  return ids;
}

export async function listChannels({ s, query }: RouteContext<unknown, ListQuery, unknown>) {
  const filter: ChannelFilter = {};
  if (query.type !== undefined) filter.type = query.type;
  if (query.status !== undefined) filter.status = query.status;
  if (query.name) filter.name = query.name;
  if (query.group) filter.group = query.group;
  if (query.models) filter.models = query.models;
  if (query.tag) filter.tag = query.tag;
  if (query.test_model) filter.testModel = query.test_model;
  if (query.key) filter.ids = await keyMatches(s, filter, query.key);
  const { rows, total } = await s.repos.channels.list(filter, query);
  return pageResult(query, rows.map(presentChannel), total);
}

export async function liveChannel(s: Services, id: number) {
  const row = await s.repos.channels.byId(id);
  if (!row) throw ApiError.notFound('Channel not found');
  return row;
}

export async function getChannel({ s, params }: RouteContext<unknown, unknown, IdParams>) {
  return presentChannel(await liveChannel(s, params.id));
}

/** The one place a channel key leaves the server; each reading is audited. */
export async function getChannelKey({ s, caller, ip, params }: RouteContext<unknown, unknown, IdParams>) {
  const row = await liveChannel(s, params.id);
  await audit(s, caller, ip, 'channel.key.view', { type: 'channel', id: row.id }, { name: row.name });
  return s.secretBox.decrypt(row.key_sealed);
}

/** POST /api/channel/: one channel per key line, named `<name>`, `<name>_2`, ... */
export async function createChannel({
  s,
  caller,
  ip,
  body,
}: RouteContext<ChannelCreateInput, unknown, unknown>) {
  const provider = selectableProvider(body.type);
  const keys = keyLines(provider, body.key);
  if (keys.length === 0) throw invalidField('key', 'Key is required');
  if (keys.length > CHANNEL_KEYS_MAX)
    throw invalidField('key', `At most ${CHANNEL_KEYS_MAX} keys (channels) per request`);
  const baseUrls = body.base_url === '' ? [] : body.base_url.split('\n');
  checkBaseUrl(provider, baseUrls[0] ?? '');
  checkChannelSettings({
    type: body.type,
    key: body.key,
    other: body.other || provider.otherDefault || '',
    base_url: baseUrls[0] ?? '',
    plugin: body.plugin,
  });
  await checkGroupsExist(s, body.group);
  const now = s.clock.nowSeconds();
  const shared = {
    type: body.type,
    status: body.status,
    weight: body.weight,
    priority: body.priority,
    created_time: now,
    test_time: 0,
    response_time: 0,
    other: body.other || provider.otherDefault || '',
    balance: 0,
    balance_updated_time: 0,
    models: body.models.join(','),
    group: body.group.join(','),
    tag: body.tag,
    used_quota: 0,
    model_mapping: JSON.stringify(body.model_mapping),
    model_headers: JSON.stringify(body.model_headers),
    custom_parameter: JSON.stringify(body.custom_parameter),
    proxy: body.proxy,
    test_model: body.test_model,
    only_chat: body.only_chat ? 1 : 0,
    pre_cost: body.pre_cost,
    plugin: JSON.stringify(body.plugin),
    deleted_at: null,
  };
  const rows: NewChannel[] = keys.map((key, i) => ({
    ...shared,
    name: i === 0 ? body.name : `${body.name}_${i + 1}`,
    key_sealed: s.secretBox.encrypt(key),
    base_url: baseUrls[i] ?? baseUrls[0] ?? '',
  }));
  const ids = await s.repos.channels.insertMany(rows);
  await s.bus.publish(CHANNELS_TOPIC);
  await audit(
    s,
    caller,
    ip,
    'channel.create',
    { type: 'channel', id: ids[0] ?? 0 },
    { name: body.name, type: body.type, ids },
  );
  return ids.map((id, i) => presentChannel({ id, ...rows[i]!, deleted_at: null }));
}

/**
 * PUT /api/channel/: an honest partial update. Only the fields present in the body change; the key
 * changes only when a non-empty one is given. Rules spanning fields are checked on the merged row.
 */
export async function updateChannel({
  s,
  caller,
  ip,
  body,
}: RouteContext<ChannelUpdateInput, unknown, unknown>) {
  const row = await liveChannel(s, body.id);
  const type = body.type ?? row.type;
  // A stored legacy type may stay; switching to a type requires it to be selectable.
  const provider =
    body.type !== undefined && body.type !== row.type ? selectableProvider(type) : providerById(type);
  const patch: ChannelPatch = {};
  if (body.type !== undefined) patch.type = body.type;
  if (body.name !== undefined) patch.name = body.name;
  if (body.base_url !== undefined) {
    if (body.base_url.includes('\n')) throw invalidField('base_url', 'A channel has one base URL');
    patch.base_url = body.base_url;
  }
  if (provider) checkBaseUrl(provider, patch.base_url ?? row.base_url);
  let keyReplaced = false;
  if (body.key !== undefined && body.key.trim() !== '') {
    const keys = provider ? keyLines(provider, body.key) : [body.key.trim()];
    if (keys.length !== 1) throw invalidField('key', 'A channel has one key; create channels to add more');
    patch.key_sealed = s.secretBox.encrypt(keys[0]!);
    keyReplaced = true;
  }
  if (body.group !== undefined) {
    await checkGroupsExist(s, body.group);
    patch.group = body.group.join(',');
  }
  if (body.models !== undefined) patch.models = body.models.join(',');
  if (body.other !== undefined) patch.other = body.other;
  if (body.tag !== undefined) patch.tag = body.tag;
  if (body.model_mapping !== undefined) patch.model_mapping = JSON.stringify(body.model_mapping);
  if (body.model_headers !== undefined) patch.model_headers = JSON.stringify(body.model_headers);
  if (body.custom_parameter !== undefined) patch.custom_parameter = JSON.stringify(body.custom_parameter);
  if (body.plugin !== undefined) patch.plugin = JSON.stringify(body.plugin);
  if (body.priority !== undefined) patch.priority = body.priority;
  if (body.weight !== undefined) patch.weight = body.weight;
  if (body.proxy !== undefined) patch.proxy = body.proxy;
  if (body.test_model !== undefined) patch.test_model = body.test_model;
  if (body.only_chat !== undefined) patch.only_chat = body.only_chat ? 1 : 0;
  if (body.pre_cost !== undefined) patch.pre_cost = body.pre_cost;
  if (body.status !== undefined) patch.status = body.status;
  if (provider) {
    // Settings the call changes are checked on the merged row; a stored value that no longer
    // passes does not block an unrelated change (a status toggle, a rename).
    const typeChanged = patch.type !== undefined && patch.type !== row.type;
    const fields = new Set<SettingProblem['field']>();
    if (keyReplaced || typeChanged) fields.add('key');
    if (patch.other !== undefined || keyReplaced || typeChanged) fields.add('other');
    if (patch.plugin !== undefined || typeChanged) fields.add('plugin');
    if (fields.size > 0) {
      checkChannelSettings(
        {
          type,
          key: keyReplaced ? body.key!.trim() : s.secretBox.decrypt(row.key_sealed),
          other: patch.other ?? row.other,
          base_url: patch.base_url ?? row.base_url,
          plugin: body.plugin ?? parsePlugin(row.plugin),
        },
        fields,
      );
    }
  }

  if (!(await s.repos.channels.update(row.id, patch))) throw ApiError.notFound('Channel not found');
  await s.bus.publish(CHANNELS_TOPIC);
  await audit(
    s,
    caller,
    ip,
    'channel.update',
    { type: 'channel', id: row.id },
    {
      fields: Object.keys(body).filter((k) => k !== 'id' && k !== 'key'),
      key_replaced: keyReplaced,
    },
  );
  return presentChannel(await liveChannel(s, row.id));
}

function parsePlugin(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text || '{}') as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export async function deleteChannel({ s, caller, ip, params }: RouteContext<unknown, unknown, IdParams>) {
  const row = await liveChannel(s, params.id);
  if (!(await s.repos.channels.softDelete(row.id, s.clock.nowSeconds())))
    throw ApiError.notFound('Channel not found');
  await s.bus.publish(CHANNELS_TOPIC);
  await audit(s, caller, ip, 'channel.delete', { type: 'channel', id: row.id }, { name: row.name });
  return null;
}

export const channelTestQuery = z.object({ model: z.string().trim().max(191).optional() });

/** GET /api/channel/test/:id?model=: one small real request through the channel (not billed). */
export async function testOneChannel({
  s,
  params,
  query,
}: RouteContext<unknown, z.infer<typeof channelTestQuery>, IdParams>) {
  const channel = await s.repos.channels.byId(params.id);
  if (!channel) throw ApiError.notFound('Channel not found');
  try {
    const result = await testChannel(s, channel, query.model);
    return new WithMessage(
      { ...result, time: result.timeMs / 1000 },
      result.ok ? '' : `Test failed: ${result.message}`,
    );
  } catch (err) {
    if (err instanceof UntestableModelError) throw ApiError.badRequest(err.message);
    throw err;
  }
}

/** GET /api/channel/test: tests every enabled or auto-disabled channel in the background. */
export async function testAllChannels({ s, req }: RouteContext<unknown, unknown, unknown>) {
  const started = s.relay.testRun.start((err) => req.log.error({ err }, 'channel test run failed'));
  if (!started) throw ApiError.conflict('A test of all channels is already running');
  return new WithMessage({ started: true }, 'Testing all channels in the background');
}

import { z } from 'zod';
import { ChannelStatus, PreCost } from '../enums.js';
import { splitList } from './token.js';

// Channels: the bodies of POST and PUT /api/channel/, shared
// with the console's channel form. Checks that need the catalog or the database (selectable type,
// base URL required by the type, groups that exist) are made by the server on the merged row.

export const CHANNEL_NAME_MAX = 100;
export const MODEL_NAME_MAX = 191;
export const CHANNEL_MODELS_MAX = 2000;
/** One create call makes one channel per key line; this bounds one call. */
export const CHANNEL_KEYS_MAX = 1000;

/**
 * A model name or a trailing-`*` wildcard: `*` only as the last character and with at
 * least one character before it. Returns the problem, or null when the name is fine.
 */
export function modelNameProblem(name: string): string | null {
  if (name.length === 0) return 'Model names cannot be empty';
  if (name.length > MODEL_NAME_MAX) return `"${name}" is longer than ${MODEL_NAME_MAX} characters`;
  if (/[\s,]/.test(name)) return `"${name}" must not contain spaces or commas`;
  const star = name.indexOf('*');
  if (star !== -1 && (star !== name.length - 1 || name.length < 2))
    return `"${name}": a wildcard * may only be the last character, after at least one other`;
  return null;
}

/** A list given as an array or as comma/newline separated text, normalised to an array. */
const listInput = z
  .union([z.array(z.string()), z.string()])
  .transform((v) => (typeof v === 'string' ? splitList(v) : v.map((s) => s.trim()).filter(Boolean)));

/** Models a channel serves: at least one, no repeats, wildcards only at the end. */
export const channelModels = listInput.superRefine((list, ctx) => {
  if (list.length === 0) ctx.addIssue({ code: 'custom', message: 'Models cannot be empty' });
  if (list.length > CHANNEL_MODELS_MAX)
    ctx.addIssue({ code: 'custom', message: `At most ${CHANNEL_MODELS_MAX} models per channel` });
  const seen = new Set<string>();
  for (const m of list) {
    const problem = modelNameProblem(m);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
    if (seen.has(m)) ctx.addIssue({ code: 'custom', message: `Model "${m}" is listed twice` });
    seen.add(m);
  }
});

/** Groups a channel serves: at least one symbol; stored comma-separated, so no commas inside. */
export const channelGroups = listInput
  .superRefine((list, ctx) => {
    if (list.length === 0) ctx.addIssue({ code: 'custom', message: 'Group cannot be empty' });
    for (const g of list) {
      if (g.length > 64 || /\s/.test(g))
        ctx.addIssue({ code: 'custom', message: `"${g}" is not a group symbol` });
    }
  })
  .transform((list) => [...new Set(list)]);

const stringMap = z.record(z.string(), z.string());
const anyMap = z.record(z.string(), z.unknown());

/** Parses JSON text (or takes an object) and requires a plain object. Empty text means `{}`. */
function jsonObject<T extends z.ZodType>(values: T, what: string, shape: string) {
  return z.union([z.string(), z.record(z.string(), z.unknown())]).transform((v, ctx): z.output<T> => {
    let parsed: unknown = v;
    if (typeof v === 'string') {
      if (v.trim() === '') return values.parse({});
      try {
        parsed = JSON.parse(v);
      } catch {
        ctx.addIssue({ code: 'custom', message: `${what} must be valid JSON` });
        return z.NEVER;
      }
    }
    const result = values.safeParse(parsed);
    if (!result.success) {
      ctx.addIssue({ code: 'custom', message: `${what} must be ${shape}` });
      return z.NEVER;
    }
    return result.data;
  });
}

/** `{"requested-model": "upstream-model"}`; a leading `+` on the target bills the requested model. */
export const modelMapping = jsonObject(stringMap, 'Model mapping', 'a JSON object of strings');
/** Extra request headers sent upstream. */
export const modelHeaders = jsonObject(stringMap, 'Model headers', 'a JSON object of strings');
/** Limits of a channel's custom parameters: they are merged into every request the channel sends. */
export const CUSTOM_PARAMETER_MAX_DEPTH = 8;
export const CUSTOM_PARAMETER_MAX_CHARS = 16_384;

function depthOf(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  let deepest = 0;
  for (const child of Object.values(v)) deepest = Math.max(deepest, depthOf(child));
  return deepest + 1;
}

/** What is wrong with a custom parameter object, or undefined when nothing is. */
export function customParameterProblem(v: Record<string, unknown>): string | undefined {
  if (JSON.stringify(v).length > CUSTOM_PARAMETER_MAX_CHARS)
    return `Custom parameters must be at most ${CUSTOM_PARAMETER_MAX_CHARS} characters of JSON`;
  if (depthOf(v) > CUSTOM_PARAMETER_MAX_DEPTH)
    return `Custom parameters must nest at most ${CUSTOM_PARAMETER_MAX_DEPTH} levels deep`;
  for (const flag of ['overwrite', 'per_model', 'pre_add'])
    if (flag in v && typeof v[flag] !== 'boolean')
      return `Custom parameters: "${flag}" must be true or false`;
  const lists = [v.remove_params];
  if (v.per_model === true) {
    for (const [model, sub] of Object.entries(v)) {
      if (['overwrite', 'per_model', 'pre_add', 'remove_params', 'stream'].includes(model)) continue;
      if (typeof sub !== 'object' || sub === null || Array.isArray(sub))
        return `Custom parameters: with per_model, "${model}" must be an object of parameters`;
      lists.push((sub as Record<string, unknown>).remove_params);
    }
  }
  for (const list of lists) {
    if (list !== undefined && (!Array.isArray(list) || list.some((p) => typeof p !== 'string' || p === '')))
      return 'Custom parameters: "remove_params" must be a list of field names (dot paths)';
  }
  return undefined;
}

/**
 * `overwrite` (the channel's values replace the client's), `per_model` (one object per model),
 * `pre_add` (merged before the client's body is read and translated), `remove_params` (fields removed).
 */
export const customParameter = jsonObject(anyMap, 'Custom parameters', 'a JSON object').superRefine(
  (v, ctx) => {
    const problem = customParameterProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  },
);
/** Type-specific settings keyed as in the provider catalog's fields. */
export const channelPlugin = jsonObject(anyMap, 'Plugin settings', 'a JSON object');

const httpUrl = /^https?:\/\/[^\s/?#]+[^\s]*$/i;

/** One base URL per line (matched to the key lines by index on create); empty = the catalog default. */
export const channelBaseUrl = z
  .string()
  .max(20_000)
  .superRefine((v, ctx) => {
    for (const line of v.split('\n').map((s) => s.trim())) {
      if (line && !httpUrl.test(line))
        ctx.addIssue({ code: 'custom', message: `"${line}" is not an http(s) URL` });
    }
  })
  .transform((v) =>
    v
      .split('\n')
      .map((s) => s.trim().replace(/\/+$/, ''))
      .filter(Boolean)
      .join('\n'),
  );

export const channelProxy = z
  .string()
  .trim()
  .max(255)
  .refine((v) => v === '' || /^(https?|socks5h?):\/\/\S+$/i.test(v), {
    message: 'Proxy must be an http://, https:// or socks5:// URL',
  });

/** An administrator sets enabled or disabled; 3 (disabled automatically) is set by the relay. */
export const channelStatus = z.union(
  [z.literal(ChannelStatus.Enabled), z.literal(ChannelStatus.ManuallyDisabled)],
  { error: 'status must be 1 (enabled) or 2 (disabled)' },
);

export const channelFields = {
  type: z.number({ error: 'Channel type is required' }).int(),
  name: z
    .string({ error: 'Name is required' })
    .trim()
    .min(1, 'Name is required')
    .max(CHANNEL_NAME_MAX, `Name must be at most ${CHANNEL_NAME_MAX} characters`),
  /** One key per line; POST makes one channel per non-empty line. */
  key: z.string({ error: 'Key is required' }).max(200_000),
  base_url: channelBaseUrl,
  other: z.string().trim().max(4000),
  models: channelModels,
  group: channelGroups,
  tag: z.string().trim().max(64),
  model_mapping: modelMapping,
  model_headers: modelHeaders,
  custom_parameter: customParameter,
  priority: z.number().int('priority must be a whole number').min(0, 'Priority cannot be below 0'),
  weight: z.number().int('weight must be a whole number').min(1, 'Weight cannot be below 1').max(1_000_000),
  proxy: channelProxy,
  test_model: z.string().trim().max(MODEL_NAME_MAX),
  only_chat: z.boolean(),
  pre_cost: z.union([z.literal(PreCost.All), z.literal(PreCost.NoImages), z.literal(PreCost.None)], {
    error: 'pre_cost must be 1, 2 or 3',
  }),
  plugin: channelPlugin,
  status: channelStatus,
};

export const channelCreateInput = z.strictObject({
  ...channelFields,
  key: channelFields.key.refine((k) => k.trim() !== '', 'Key is required'),
  base_url: channelFields.base_url.default(''),
  other: channelFields.other.default(''),
  tag: channelFields.tag.default(''),
  model_mapping: channelFields.model_mapping.default({}),
  model_headers: channelFields.model_headers.default({}),
  custom_parameter: channelFields.custom_parameter.default({}),
  priority: channelFields.priority.default(0),
  weight: channelFields.weight.default(1),
  proxy: channelFields.proxy.default(''),
  test_model: channelFields.test_model.default(''),
  only_chat: channelFields.only_chat.default(false),
  pre_cost: channelFields.pre_cost.default(PreCost.All),
  plugin: channelFields.plugin.default({}),
  status: channelFields.status.default(ChannelStatus.Enabled),
});
export type ChannelCreateInput = z.infer<typeof channelCreateInput>;

/**
 * PUT /api/channel/: `id` plus only the fields to change; a field left out keeps its value. An
 * empty `key` keeps the stored key.
 */
export const channelUpdateInput = z.strictObject({
  id: z.number().int().positive('id is required'),
  type: channelFields.type.optional(),
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
  priority: channelFields.priority.optional(),
  weight: channelFields.weight.optional(),
  proxy: channelFields.proxy.optional(),
  test_model: channelFields.test_model.optional(),
  only_chat: channelFields.only_chat.optional(),
  pre_cost: channelFields.pre_cost.optional(),
  plugin: channelFields.plugin.optional(),
  status: channelFields.status.optional(),
});
export type ChannelUpdateInput = z.infer<typeof channelUpdateInput>;

/** A channel as the API shows it: never its key. */
export interface ChannelView {
  id: number;
  type: number;
  name: string;
  status: number;
  priority: number;
  weight: number;
  base_url: string;
  other: string;
  models: string[];
  group: string[];
  tag: string;
  model_mapping: Record<string, string>;
  model_headers: Record<string, string>;
  custom_parameter: Record<string, unknown>;
  plugin: Record<string, unknown>;
  proxy: string;
  test_model: string;
  only_chat: boolean;
  pre_cost: number;
  created_time: number;
  test_time: number;
  response_time: number;
  balance: number;
  balance_updated_time: number;
  used_quota: number;
}

/** One channel's line of GET /api/channel/update_balance. */
export type BalanceResult =
  | {
      id: number;
      name: string;
      balance: number;
      currency: string;
      balance_updated_time: number;
      disabled: boolean;
    }
  /** `code`: upstream_error (the vendor refused or could not be reached), invalid_request, internal_error. */
  | { id: number; name: string; error: string; code: string };

/** GET /api/channel/update_balance: what happened to each enabled channel that has a balance query. */
export interface BalanceUpdateReport {
  updated: number;
  failed: number;
  /** Channels disabled because nothing was left. */
  disabled: number;
  results: BalanceResult[];
}

import {
  ChannelStatus,
  type ChannelView,
  CONNECTION_FIELDS,
  channelCreateInput,
  channelUpdateInput,
  isSecondsField,
  modelNameProblem,
  PreCost,
  type ProviderDef,
  providers,
} from '@switchyard/domain';
import { i18n } from '../../i18n';
import { checkForm, type FieldErrors } from '../admin/field-errors';

// The channel edit dialog's state and its conversion to the API body. Kept apart from the dialog so
// its rules (required fields, priority >= 0, weight >= 1, JSON mapping) are tested without a
// browser.

export interface KeyValueRow {
  key: string;
  value: string;
}

export interface ChannelForm {
  type: number;
  name: string;
  /** One key per line: a new channel per line on create. */
  key: string;
  base_url: string;
  other: string;
  models: string[];
  group: string[];
  tag: string;
  mapping: KeyValueRow[];
  headers: KeyValueRow[];
  priority: string;
  weight: string;
  test_model: string;
  proxy: string;
  only_chat: boolean;
  pre_cost: number;
  /** The type's own fields by their dotted catalog key; booleans for switches, text otherwise. */
  plugin: Record<string, string | boolean>;
}

export const selectableProviders = (): ProviderDef[] => providers.filter((p) => p.selectable);

export function providerOf(type: number): ProviderDef | undefined {
  return providers.find((p) => p.id === type);
}

export function emptyChannelForm(type = 1): ChannelForm {
  const provider = providerOf(type);
  return {
    type,
    name: '',
    key: '',
    base_url: '',
    other: provider?.otherDefault ?? '',
    models: [],
    group: ['default'],
    tag: '',
    mapping: [],
    headers: [],
    priority: '0',
    weight: '1',
    test_model: '',
    proxy: '',
    only_chat: false,
    pre_cost: PreCost.All,
    plugin: {},
  };
}

const rowsOf = (map: Record<string, string>): KeyValueRow[] =>
  Object.entries(map).map(([key, value]) => ({ key, value }));

/** `{a: {b: 1}}` as `{'a.b': 1}`, for the catalog's dotted field keys. */
export function flattenPlugin(
  plugin: Record<string, unknown>,
  prefix = '',
): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (const [k, v] of Object.entries(plugin)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'boolean') out[path] = v;
    else if (typeof v === 'string' || typeof v === 'number') out[path] = String(v);
    else if (v && typeof v === 'object' && !Array.isArray(v)) {
      // A json-kind field holds an object as a whole; other objects are paths to deeper fields.
      const field = providers.flatMap((p) => p.fields).find((f) => f.key === path);
      if (field?.kind === 'json') out[path] = JSON.stringify(v, null, 2);
      else Object.assign(out, flattenPlugin(v as Record<string, unknown>, path));
    }
  }
  return out;
}

export function formFromChannel(c: ChannelView): ChannelForm {
  return {
    type: c.type,
    name: c.name,
    key: '',
    base_url: c.base_url,
    other: c.other,
    models: [...c.models],
    group: [...c.group],
    tag: c.tag,
    mapping: rowsOf(c.model_mapping),
    headers: rowsOf(c.model_headers),
    priority: String(c.priority),
    weight: String(c.weight),
    test_model: c.test_model,
    proxy: c.proxy,
    only_chat: c.only_chat,
    pre_cost: c.pre_cost,
    plugin: flattenPlugin(c.plugin),
  };
}

/** Adds models typed or pasted (comma or newline separated), keeping the order and dropping repeats. */
export function addModels(current: readonly string[], typed: readonly string[]): string[] {
  const out = [...current];
  for (const entry of typed.flatMap((t) => t.split(/[,\n]/))) {
    const name = entry.trim();
    if (name && !out.includes(name)) out.push(name);
  }
  return out;
}

function mapFromRows(rows: readonly KeyValueRow[]): { map: Record<string, string>; problem?: string } {
  const map: Record<string, string> = {};
  for (const row of rows) {
    const key = row.key.trim();
    const value = row.value.trim();
    if (key === '' && value === '') continue;
    if (key === '' || value === '') return { map, problem: i18n.t('admin.channel.error.rowIncomplete') };
    if (key in map) return { map, problem: i18n.t('admin.channel.error.rowRepeated', { key }) };
    map[key] = value;
  }
  return { map };
}

function nestPlugin(
  form: ChannelForm,
  provider: ProviderDef | undefined,
): { plugin: Record<string, unknown>; errors: FieldErrors } {
  const plugin: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const field of [...(provider?.fields ?? []), ...CONNECTION_FIELDS]) {
    const raw = form.plugin[field.key];
    let value: unknown;
    if (field.kind === 'bool') {
      value = raw === true;
      // The settings every channel carries are stored only when switched on: off is their default.
      if (value === false && CONNECTION_FIELDS.includes(field)) continue;
    } else {
      const text = typeof raw === 'string' ? raw.trim() : '';
      if (text === '') {
        if (field.required) errors[`plugin.${field.key}`] = i18n.t('admin.validation.required');
        continue;
      }
      if (field.kind === 'json') {
        try {
          value = JSON.parse(text);
        } catch {
          errors[`plugin.${field.key}`] = i18n.t('admin.validation.invalidJson');
          continue;
        }
      } else if (isSecondsField(field.key)) {
        value = Number(text);
        if (!Number.isFinite(value)) {
          errors[`plugin.${field.key}`] = i18n.t('admin.validation.number');
          continue;
        }
      } else value = text;
    }
    const parts = field.key.split('.');
    let node = plugin;
    for (const part of parts.slice(0, -1)) {
      node[part] ??= {};
      node = node[part] as Record<string, unknown>;
    }
    node[parts.at(-1) as string] = value;
  }
  return { plugin, errors };
}

/** The model rules, in the reader's language: no repeats, `*` only last after another character. */
export function modelsProblem(models: readonly string[]): string | null {
  if (models.length === 0) return i18n.t('admin.channel.error.modelsRequired');
  const seen = new Set<string>();
  for (const m of models) {
    if (seen.has(m)) return i18n.t('admin.channel.error.modelRepeated', { model: m });
    seen.add(m);
    if (modelNameProblem(m)) return i18n.t('admin.channel.error.modelName', { model: m });
  }
  return null;
}

export type ChannelBody = Record<string, unknown>;

/**
 * The POST (no id) or PUT (with id) body for the form, or the translated problem of each field.
 * On edit an empty key keeps the stored one.
 */
export function channelBody(
  form: ChannelForm,
  id?: number,
): { ok: true; body: ChannelBody } | { ok: false; errors: FieldErrors } {
  const provider = providerOf(form.type);
  const errors: FieldErrors = {};
  if (!provider?.selectable) errors.type = i18n.t('admin.channel.error.typeRequired');
  if (form.name.trim() === '') errors.name = i18n.t('admin.channel.error.nameRequired');
  if (id === undefined && form.key.trim() === '') errors.key = i18n.t('admin.channel.error.keyRequired');
  if (provider?.baseUrlRequired && form.base_url.trim() === '')
    errors.base_url = i18n.t('admin.channel.error.baseUrlRequired');
  const models = modelsProblem(form.models);
  if (models) errors.models = models;
  if (form.group.length === 0) errors.group = i18n.t('admin.channel.error.groupRequired');
  const priority = Number(form.priority);
  if (form.priority.trim() === '' || !Number.isInteger(priority) || priority < 0)
    errors.priority = i18n.t('admin.channel.error.priority');
  const weight = Number(form.weight);
  if (form.weight.trim() === '' || !Number.isInteger(weight) || weight < 1)
    errors.weight = i18n.t('admin.channel.error.weight');
  const mapping = mapFromRows(form.mapping);
  if (mapping.problem) errors.model_mapping = mapping.problem;
  const headers = mapFromRows(form.headers);
  if (headers.problem) errors.model_headers = headers.problem;
  const nested = nestPlugin(form, provider);
  Object.assign(errors, nested.errors);
  if (Object.keys(errors).length > 0) return { ok: false, errors };

  const body: ChannelBody = {
    type: form.type,
    name: form.name.trim(),
    base_url: form.base_url.trim(),
    other: form.other.trim(),
    models: form.models,
    group: form.group,
    tag: form.tag.trim(),
    model_mapping: JSON.stringify(mapping.map),
    model_headers: JSON.stringify(headers.map),
    priority,
    weight,
    test_model: form.test_model.trim(),
    proxy: form.proxy.trim(),
    only_chat: form.only_chat,
    pre_cost: form.pre_cost,
    plugin: nested.plugin,
  };
  if (form.key.trim() !== '') body.key = form.key.trim();
  // The shared schema has the last word (URLs, proxy, lengths) before anything is sent.
  const checked =
    id === undefined
      ? checkForm(channelCreateInput, { ...body, status: ChannelStatus.Enabled })
      : checkForm(channelUpdateInput, { ...body, id });
  if (!checked.ok) return checked;
  return { ok: true, body: id === undefined ? body : { ...body, id } };
}

/**
 * The channel's models that no price covers (exactly, or by a `prefix*` price, as the relay looks
 * them up): the relay answers them 404 and leaves them out of /v1/models until they are priced.
 * A wildcard model of the channel counts as priced when the same wildcard is.
 */
export function unpricedModels(models: readonly string[], priced: readonly string[]): string[] {
  const exact = new Set(priced);
  const prefixes = priced.filter((p) => p.endsWith('*')).map((p) => p.slice(0, -1));
  return models.filter((m) => !exact.has(m) && !prefixes.some((p) => !m.endsWith('*') && m.startsWith(p)));
}

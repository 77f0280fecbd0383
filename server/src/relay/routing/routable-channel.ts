import type { Selectable } from 'kysely';
import type { ChannelsTable } from '../../db/tables.js';
import { HTTP_TOKEN } from '../../http/header-syntax.js';
import { type CustomParameter, parseCustomParameter } from '../request-policies/custom-parameter.js';

export type ChannelRow = Selectable<ChannelsTable>;

/** Where a requested model is sent, and which name it is billed under. */
export interface ModelMappingTarget {
  upstream: string;
  /** Set by a leading `+` in the stored target: send `upstream` but bill the requested model. */
  billRequested: boolean;
}

/**
 * A channel as the router sees it: lists split, JSON parsed once, numbers normalised. The key stays
 * sealed: opening it costs a decryption the router does not need, and a sealed string is harmless
 * if the object ever ends up in a log.
 */
export interface RoutableChannel {
  readonly id: number;
  readonly type: number;
  readonly name: string;
  readonly status: number;
  readonly groups: readonly string[];
  /** As listed; entries ending in `*` are wildcard prefixes. */
  readonly models: readonly string[];
  /** At least 1 (a stored 0 means 1). */
  readonly weight: number;
  readonly priority: number;
  readonly onlyChat: boolean;
  readonly modelMapping: ReadonlyMap<string, ModelMappingTarget>;
  readonly modelHeaders: Readonly<Record<string, string>>;
  readonly keySealed: string;
  readonly baseUrl: string;
  readonly other: string;
  readonly proxy: string;
  readonly testModel: string;
  readonly preCost: number;
  /** Parameters merged into the bodies sent to this channel; null when none. */
  readonly customParameter: CustomParameter | null;
  /** Raw JSON text: the adapters own its meaning. */
  readonly plugin: string;
  readonly tag: string;
  /**
   * What was wrong with the stored row and was ignored (bad JSON, a bare `*` model, ...). Empty for
   * a clean row; the loader logs these so a typo in the console does not silently drop routes.
   */
  readonly problems: readonly string[];
}

// Names must be RFC 9110 tokens (HTTP_TOKEN) and values free of CR, LF and NUL: anything else
// would be refused at send time, far from the cause.
const BAD_HEADER_VALUE = /[\r\n\0]/;

/** Splits a stored comma list: trimmed, empties dropped, first occurrence kept. */
export function splitList(text: string): string[] {
  const seen = new Set<string>();
  for (const part of text.split(',')) {
    const item = part.trim();
    if (item !== '') seen.add(item);
  }
  return [...seen];
}

/** True for a usable wildcard entry: a trailing `*` with at least one character before it. */
export function isWildcard(model: string): boolean {
  return model.length > 1 && model.endsWith('*');
}

function parseJsonObject(
  text: string,
  column: string,
  problems: string[],
): Record<string, unknown> | undefined {
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    problems.push(`${column} is not valid JSON; ignored`);
    return undefined;
  }
  if (parsed === null) return undefined;
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    problems.push(`${column} must be a JSON object; ignored`);
    return undefined;
  }
  return parsed as Record<string, unknown>;
}

function parseModelMapping(text: string, problems: string[]): Map<string, ModelMappingTarget> {
  const out = new Map<string, ModelMappingTarget>();
  const obj = parseJsonObject(text, 'model_mapping', problems);
  if (!obj) return out;
  for (const [from, to] of Object.entries(obj)) {
    if (typeof to !== 'string') {
      problems.push(`model_mapping for "${from}" is not a string; ignored`);
      continue;
    }
    const billRequested = to.startsWith('+');
    const upstream = (billRequested ? to.slice(1) : to).trim();
    // An empty target means "no mapping" in the console's editor, not "send an empty model".
    if (from === '' || upstream === '') continue;
    out.set(from, { upstream, billRequested });
  }
  return out;
}

function parseModelHeaders(text: string, problems: string[]): Record<string, string> {
  const obj = parseJsonObject(text, 'model_headers', problems);
  if (!obj) return {};
  const entries: [string, string][] = [];
  for (const [name, value] of Object.entries(obj)) {
    if (typeof value !== 'string') {
      problems.push(`model_headers "${name}" is not a string; ignored`);
    } else if (!HTTP_TOKEN.test(name)) {
      problems.push(`model_headers "${name}" is not a valid header name; ignored`);
    } else if (BAD_HEADER_VALUE.test(value)) {
      problems.push(`model_headers "${name}" contains a line break; ignored`);
    } else {
      entries.push([name, value]);
    }
  }
  // fromEntries defines own properties, so a "__proto__" header cannot reach the prototype.
  return Object.fromEntries(entries);
}

function parseModels(text: string, problems: string[]): string[] {
  const models: string[] = [];
  for (const model of splitList(text)) {
    if (model === '*') {
      problems.push('model "*" matches nothing (a wildcard needs a prefix such as "gpt-*"); ignored');
      continue;
    }
    models.push(model);
  }
  return models;
}

function finiteOr(value: unknown, fallback: number): number {
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : fallback;
}

function readCustomParameter(text: string, problems: string[]): CustomParameter | null {
  try {
    return parseCustomParameter(text);
  } catch {
    problems.push('custom_parameter is not a JSON object; ignored');
    return null;
  }
}

export function toRoutableChannel(row: ChannelRow): RoutableChannel {
  const problems: string[] = [];
  const weight = finiteOr(row.weight, 1);
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    status: row.status,
    groups: splitList(row.group),
    models: parseModels(row.models, problems),
    weight: weight > 0 ? weight : 1,
    priority: finiteOr(row.priority, 0),
    onlyChat: Boolean(row.only_chat),
    modelMapping: parseModelMapping(row.model_mapping, problems),
    modelHeaders: parseModelHeaders(row.model_headers, problems),
    keySealed: row.key_sealed,
    baseUrl: row.base_url,
    other: row.other,
    proxy: row.proxy,
    testModel: row.test_model,
    preCost: row.pre_cost,
    customParameter: readCustomParameter(row.custom_parameter, problems),
    plugin: row.plugin,
    tag: row.tag,
    problems,
  };
}

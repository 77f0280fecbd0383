// A channel's `custom_parameter`: JSON merged into the request body sent to that channel, with
// one-hub's controls. `overwrite` replaces the client's fields (otherwise the client's values win
// and only objects are merged key by key); `per_model` takes the sub-object named by the model;
// `pre_add` merges into the client's body before it is read and translated, instead of into the
// body sent upstream; `remove_params` lists fields (dot paths) deleted first.

type Json = Record<string, unknown>;

/** Keys that steer the merge and are never sent. */
const CONTROL_KEYS = new Set(['overwrite', 'per_model', 'pre_add', 'remove_params', 'stream']);

export interface CustomParameter {
  overwrite: boolean;
  perModel: boolean;
  preAdd: boolean;
  /** The stored object: fields to merge, or with per_model one object of them per model. */
  values: Json;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The stored text as a CustomParameter; null when there is nothing to merge. Throws on bad JSON. */
export function parseCustomParameter(text: string): CustomParameter | null {
  if (text.trim() === '') return null;
  const values: unknown = JSON.parse(text);
  if (!isObject(values)) throw new Error('custom_parameter is not a JSON object');
  if (Object.keys(values).every((k) => CONTROL_KEYS.has(k) && k !== 'remove_params')) return null;
  return {
    overwrite: values.overwrite === true,
    perModel: values.per_model === true,
    preAdd: values.pre_add === true,
    values,
  };
}

/** Objects merged key by key; anything else from `added` replaces what was there. */
function deepMerge(existing: Json, added: Json): Json {
  const out: Json = { ...existing };
  for (const [k, v] of Object.entries(added)) {
    const old = out[k];
    out[k] = isObject(old) && isObject(v) ? deepMerge(old, v) : v;
  }
  return out;
}

/** `body` without the field at a dot path; the objects along the path are copied, not changed. */
function withoutPath(body: Json, path: string[]): Json {
  const [head, ...rest] = path;
  if (head === undefined || !Object.hasOwn(body, head)) return body;
  const out: Json = { ...body };
  if (rest.length === 0) {
    delete out[head];
    return out;
  }
  const next = out[head];
  if (!isObject(next)) return body;
  out[head] = withoutPath(next, rest);
  return out;
}

/**
 * `body` with the channel's parameters merged for `model` (the model the body is for). The body is
 * not changed: a retry on another channel starts again from the client's request.
 */
export function mergeCustomParameter(body: Json, p: CustomParameter, model: string): Json {
  let selected: Json = p.values;
  if (p.perModel) {
    const forModel = Object.hasOwn(p.values, model) ? p.values[model] : undefined;
    selected = isObject(forModel) ? forModel : {};
  }
  let out: Json = { ...body };
  const remove = selected.remove_params;
  if (Array.isArray(remove)) {
    for (const path of remove) if (typeof path === 'string') out = withoutPath(out, path.split('.'));
  }
  for (const [key, value] of Object.entries(selected)) {
    if (CONTROL_KEYS.has(key)) continue;
    if (p.overwrite || !Object.hasOwn(out, key)) {
      out[key] = value;
      continue;
    }
    const old = out[key];
    if (isObject(old) && isObject(value)) out[key] = deepMerge(old, value);
  }
  return out;
}

import { asArray, asString, isRecord, type JsonRecord } from './json-reading.js';

// Gemini's `parameters` and `responseSchema` take a subset of OpenAPI 3.0 schema, and refuse the
// whole request over a keyword outside it (`$schema`, `additionalProperties`, `const`, a type list).
// JSON Schema from OpenAI clients is brought into that subset; Gemini schemas going the other way
// only need their upper-case type names lowered.

const KEPT_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'default',
  'minimum',
  'maximum',
  'required',
  'propertyOrdering',
]);

/** A JSON Schema as a Gemini Schema: unknown keywords dropped, type lists and `const` rewritten. */
export function toGeminiSchema(schema: unknown): JsonRecord {
  if (!isRecord(schema)) return {};
  const out: JsonRecord = {};
  for (const [k, v] of Object.entries(schema)) if (KEPT_KEYWORDS.has(k)) out[k] = v;
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t): t is string => typeof t === 'string');
    const real = types.filter((t) => t !== 'null');
    if (real[0]) out.type = real[0];
    else delete out.type;
    if (types.includes('null')) out.nullable = true;
  }
  if (schema.const !== undefined && out.enum === undefined) out.enum = [schema.const];
  // Gemini enums are strings of a string schema.
  if (Array.isArray(out.enum)) {
    out.enum = out.enum.map((e) => String(e));
    if (out.type !== undefined && out.type !== 'string') delete out.enum;
  }
  if (isRecord(schema.properties)) {
    const props: JsonRecord = {};
    for (const [name, p] of Object.entries(schema.properties)) props[name] = toGeminiSchema(p);
    out.properties = props;
  }
  if (schema.items !== undefined) out.items = toGeminiSchema(schema.items);
  const anyOf = asArray(schema.anyOf ?? schema.oneOf).filter(isRecord);
  if (anyOf.length) {
    const variants = anyOf.filter((s) => s.type !== 'null');
    if (variants.length < anyOf.length) out.nullable = true;
    const first = variants[0];
    if (variants.length === 1 && first) Object.assign(out, toGeminiSchema(first));
    else if (variants.length > 1) out.anyOf = variants.map(toGeminiSchema);
  }
  return out;
}

/** A Gemini Schema as JSON Schema: type names lowered, `nullable` folded into the type. */
export function fromGeminiSchema(schema: unknown): JsonRecord {
  if (!isRecord(schema)) return {};
  const out: JsonRecord = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'properties' && isRecord(v)) {
      const props: JsonRecord = {};
      for (const [name, p] of Object.entries(v)) props[name] = fromGeminiSchema(p);
      out.properties = props;
    } else if (k === 'items') out.items = fromGeminiSchema(v);
    else if (k === 'anyOf') out.anyOf = asArray(v).map(fromGeminiSchema);
    else if (k === 'type') {
      const t = asString(v)?.toLowerCase();
      if (t && t !== 'type_unspecified') out.type = t;
    } else if (k !== 'nullable' && k !== 'propertyOrdering') out[k] = v;
  }
  if (schema.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

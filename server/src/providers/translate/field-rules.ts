import { TranslationError } from './translation-error.js';

// Which top-level fields of a request a translator carries across. A field the target protocol has
// no way to honour is refused with a 400 naming it, never dropped: a client that asked for
// penalties, log-probabilities or several choices must learn it did not get them. The table of
// every field is docs/compatibility.md.

/**
 * `mapped`: the translator carries it. `moot`: it means nothing once the request leaves the
 * client's provider (a storage or routing hint), documented as such. A function: whether this value
 * can be honoured (a default value asks for nothing).
 */
export type FieldRule = 'mapped' | 'moot' | ((value: unknown) => boolean);

export type FieldRules = Readonly<Record<string, FieldRule>>;

/** Refuses the first field of `body` the rules do not let through; unknown fields are refused too. */
export function refuseUnsupportedFields(
  body: Record<string, unknown>,
  rules: FieldRules,
  target: string,
): void {
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    const rule = rules[name];
    if (rule === 'mapped' || rule === 'moot') continue;
    if (rule === undefined) {
      throw new TranslationError(`${name} is not a field this gateway can translate for ${target}`, name);
    }
    if (!rule(value)) {
      throw new TranslationError(
        `${name} is not supported by ${target}; remove it or use another model`,
        name,
      );
    }
  }
}

/** Value predicates shared by the tables. */
export const accepts = {
  zero: (v: unknown) => v === 0,
  false: (v: unknown) => v === false,
  one: (v: unknown) => v === 1,
  emptyObject: (v: unknown) => typeof v === 'object' && v !== null && Object.keys(v).length === 0,
  emptyArray: (v: unknown) => Array.isArray(v) && v.length === 0,
  textOnly: (v: unknown) =>
    Array.isArray(v) && v.every((m) => typeof m === 'string' && m.toLowerCase() === 'text'),
  never: () => false,
} as const;

// The typed registry of every option key (reference/one-hub.md §9). Values travel and are stored as
// strings (wire compatibility); the server keeps the parsed, typed snapshot in memory.

export type OptionSection = 'operation' | 'system' | 'other';

export interface OptionDef<T> {
  kind: 'bool' | 'int' | 'float' | 'string' | 'text' | 'json';
  section: OptionSection;
  default: T;
  /** Write-only: GET tells whether it is set, never its value. */
  secret: boolean;
  /** Turning this boolean on needs these keys to be non-empty first. */
  requires: readonly string[];
  /** Parses the stored string; throws an Error whose message is shown to the admin. */
  parse(raw: string): T;
  format(value: T): string;
}

interface Common {
  section: OptionSection;
  secret?: boolean;
  requires?: readonly string[];
}

function def<T>(kind: OptionDef<T>['kind'], value: T, o: Common, parse: (raw: string) => T, format: (v: T) => string): OptionDef<T> {
  return { kind, section: o.section, default: value, secret: o.secret ?? false, requires: o.requires ?? [], parse, format };
}

export function bool(value: boolean, o: Common): OptionDef<boolean> {
  return def('bool', value, o, (raw) => {
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    throw new Error('must be "true" or "false"');
  }, String);
}

export function int(value: number, o: Common & { min?: number; max?: number }): OptionDef<number> {
  return def('int', value, o, (raw) => {
    const n = Number(raw.trim());
    if (raw.trim() === '' || !Number.isSafeInteger(n)) throw new Error('must be a whole number');
    if (o.min !== undefined && n < o.min) throw new Error(`must be at least ${o.min}`);
    if (o.max !== undefined && n > o.max) throw new Error(`must be at most ${o.max}`);
    return n;
  }, String);
}

export function float(value: number, o: Common & { min?: number; max?: number }): OptionDef<number> {
  return def('float', value, o, (raw) => {
    const n = Number(raw.trim());
    if (raw.trim() === '' || !Number.isFinite(n)) throw new Error('must be a number');
    if (o.min !== undefined && n < o.min) throw new Error(`must be at least ${o.min}`);
    if (o.max !== undefined && n > o.max) throw new Error(`must be at most ${o.max}`);
    return n;
  }, String);
}

export function str(value: string, o: Common & { maxLength?: number; pattern?: RegExp; patternMessage?: string }): OptionDef<string> {
  return def('string', value, o, (raw) => {
    if (o.maxLength !== undefined && raw.length > o.maxLength) throw new Error(`must be at most ${o.maxLength} characters`);
    if (o.pattern && raw !== '' && !o.pattern.test(raw)) throw new Error(o.patternMessage ?? 'has an invalid format');
    return raw;
  }, (v) => v);
}

export function text(value: string, o: Common): OptionDef<string> {
  return def('text', value, o, (raw) => raw, (v) => v);
}

/** JSON text checked by `check` (which throws with a message when the shape is wrong). Empty text means the default. */
export function json<T>(value: T, o: Common, check: (parsed: unknown) => T): OptionDef<T> {
  return def('json', value, o, (raw) => {
    if (raw.trim() === '') return value;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new Error('Invalid JSON');
    }
    return check(parsed);
  }, (v) => JSON.stringify(v));
}

// OPTION DEFINITIONS: filled in below by section.
export const optionDefs = {
  // ---- system ----
  PasswordLoginEnabled: bool(true, { section: 'system' }),
  PasswordRegisterEnabled: bool(true, { section: 'system' }),
  RegisterEnabled: bool(true, { section: 'system' }),
  // ---- operation ----
  QuotaPerUnit: int(500000, { section: 'operation', min: 1 }),
  // ---- other ----
  SystemName: str('Switchyard', { section: 'other', maxLength: 100 }),
} as const;

export type OptionKey = keyof typeof optionDefs;
export type OptionValues = { -readonly [K in OptionKey]: (typeof optionDefs)[K] extends OptionDef<infer T> ? T : never };

export function isOptionKey(key: string): key is OptionKey {
  return Object.hasOwn(optionDefs, key);
}

export function defaultOptionValues(): OptionValues {
  const out: Record<string, unknown> = {};
  for (const [key, d] of Object.entries(optionDefs)) out[key] = (d as OptionDef<unknown>).default;
  return out as OptionValues;
}

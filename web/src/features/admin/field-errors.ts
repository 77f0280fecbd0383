import { i18n } from '../../i18n';

// Field messages of the admin forms in the reader's language. The shared zod schemas carry English
// developer texts; the issue's code and bounds say enough to choose a translated text.

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  origin?: string;
  input?: unknown;
  params?: Record<string, unknown>;
}

export interface Schema<Out> {
  safeParse(value: unknown): { success: true; data: Out } | { success: false; error: { issues: Issue[] } };
}

export type FieldErrors = Record<string, string>;

export function adminIssueText(issue: Issue, value: unknown): string {
  const named = issue.params?.i18nKey;
  if (typeof named === 'string') return i18n.t(named as 'admin.validation.required');
  const empty = value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
  if (empty && (issue.code === 'too_small' || issue.code === 'invalid_type'))
    return i18n.t('admin.validation.required');
  if (issue.code === 'too_small' && issue.origin === 'number')
    return i18n.t('admin.validation.min', { min: String(issue.minimum) });
  if (issue.code === 'too_big' && issue.origin === 'number')
    return i18n.t('admin.validation.max', { max: String(issue.maximum) });
  if (issue.code === 'too_small' && issue.origin === 'string')
    return i18n.t('admin.validation.tooShort', { min: String(issue.minimum) });
  if (issue.code === 'too_big' && issue.origin === 'string')
    return i18n.t('admin.validation.tooLong', { max: String(issue.maximum) });
  if (issue.code === 'invalid_type') return i18n.t('admin.validation.number');
  return i18n.t('admin.validation.invalid');
}

/** Validates `value`: the parsed data, or one translated message per failing top-level field. */
export function checkForm<Out>(
  schema: Schema<Out>,
  value: Record<string, unknown>,
): { ok: true; data: Out } | { ok: false; errors: FieldErrors } {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, data: result.data };
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const field = String(issue.path[0] ?? '_');
    errors[field] ??= adminIssueText(issue, value[field]);
  }
  return { ok: false, errors };
}

/** Whether `text` is valid JSON; empty counts as valid. */
export function isJsonText(text: string): boolean {
  if (text.trim() === '') return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A number typed into a field: '' stays '' so that "required" can be reported. */
export function numberOrBlank(text: string): number | '' {
  const t = text.trim();
  if (t === '') return '';
  const n = Number(t);
  return Number.isFinite(n) ? n : Number.NaN;
}

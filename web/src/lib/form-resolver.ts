import type { FieldError, FieldErrors, FieldValues, Resolver } from 'react-hook-form';
import { i18n } from '../i18n';

// react-hook-form validation with the shared zod schemas of @switchyard/domain. The schemas carry
// English developer messages; the user reads a translated text chosen from the issue itself.

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  format?: string;
  origin?: string;
  params?: Record<string, unknown>;
}

interface Schema<Out> {
  safeParseAsync(
    value: unknown,
  ): Promise<{ success: true; data: Out } | { success: false; error: { issues: Issue[] } }>;
}

/** Lets a form's own refinement name the text to show: `ctx.addIssue({ code: 'custom', params: { i18nKey } })`. */
export type IssueKey =
  | 'validation.required'
  | 'validation.tooShort'
  | 'validation.tooLong'
  | 'validation.invalidEmail'
  | 'validation.invalidChars'
  | 'validation.passwordsDoNotMatch'
  | 'validation.invalid';

export function issueText(issue: Issue, value: unknown): string {
  const empty = value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
  const named = issue.params?.i18nKey;
  if (typeof named === 'string') return i18n.t(named as IssueKey);
  if (issue.code === 'custom' && issue.path.at(-1) === 'password2')
    return i18n.t('validation.passwordsDoNotMatch');
  if (empty && (issue.code === 'too_small' || issue.code === 'invalid_type'))
    return i18n.t('validation.required');
  if (issue.code === 'too_small' && issue.origin === 'string')
    return i18n.t('validation.tooShort', { min: String(issue.minimum) });
  if (issue.code === 'too_big' && issue.origin === 'string')
    return i18n.t('validation.tooLong', { max: String(issue.maximum) });
  if (issue.code === 'invalid_format' && issue.format === 'email') return i18n.t('validation.invalidEmail');
  if (issue.code === 'invalid_format' && issue.format === 'regex') return i18n.t('validation.invalidChars');
  return i18n.t('validation.invalid');
}

function valueAt(values: unknown, path: PropertyKey[]): unknown {
  let current = values;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/**
 * A schema loaded on the first check: a screen whose first load should not carry the validation
 * library (the sign-in form) validates once its user submits.
 */
export function lazySchema<Out>(load: () => Promise<Schema<Out>>): Schema<Out> {
  return { safeParseAsync: async (value) => (await load()).safeParseAsync(value) };
}

export function schemaResolver<In extends FieldValues, Out extends FieldValues = In>(
  schema: Schema<Out>,
): Resolver<In, unknown, Out> {
  return async (values) => {
    const result = await schema.safeParseAsync(values);
    if (result.success) return { values: result.data, errors: {} };
    const errors: Record<string, FieldError> = {};
    for (const issue of result.error.issues) {
      const name = issue.path.map(String).join('.');
      errors[name] ??= { type: issue.code, message: issueText(issue, valueAt(values, issue.path)) };
    }
    return { values: {}, errors: nest(errors) as FieldErrors<In> };
  };
}

/** "a.b" → { a: { b } }: react-hook-form reads nested field errors by path. */
function nest(flat: Record<string, FieldError>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [path, error] of Object.entries(flat)) {
    const keys = path.split('.');
    let node = out;
    keys.slice(0, -1).forEach((key) => {
      node[key] ??= {};
      node = node[key] as Record<string, unknown>;
    });
    node[keys.at(-1) ?? ''] = error;
  }
  return out;
}

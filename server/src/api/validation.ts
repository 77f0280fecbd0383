import { ErrorCode } from '@switchyard/domain';
import { z } from 'zod';
import { ApiError } from '../http/api-error.js';

// Request checks made inside handlers (those that need the clock, the catalog or the database, and
// bodies whose schema depends on the query) answer exactly like the routes table's own validation:
// 400, `invalid_request`, and `errors: [{path, message}]` naming the field.

export function invalidField(path: string, message: string, where = 'body'): ApiError {
  return new ApiError(400, ErrorCode.invalidRequest, `Invalid ${where}: ${path}: ${message}`, [
    { path, message },
  ]);
}

export function parseBody<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = result.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
  const summary = errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
  throw new ApiError(400, ErrorCode.invalidRequest, `Invalid body: ${summary}`, errors);
}

export const idParams = z.object({ id: z.coerce.number().int().positive('id must be a positive number') });
export type IdParams = z.infer<typeof idParams>;

/** Query values arrive as text; an empty field in a console filter means "not filtered". */
const blankToUndefined = (v: unknown) => (v === '' ? undefined : v);

export const optionalInt = z.preprocess(blankToUndefined, z.coerce.number().int().optional());
export const optionalText = z.preprocess(blankToUndefined, z.string().trim().max(191).optional());

import { z } from 'zod';
import { ApiError } from '../http/api-error.js';
import type { RouteContext } from '../http/route.js';
import { audit } from './audit.js';

// PUT /api/option/ takes one {key, value} (reference §2.13) or a whole settings section at once.
export const putOptionBody = z.union([
  z.strictObject({ key: z.string().min(1).max(100), value: z.string().max(1_000_000) }),
  z.strictObject({ options: z.record(z.string().max(100), z.string().max(1_000_000)) }),
]);
type PutOptionBody = z.infer<typeof putOptionBody>;

export async function listOptions({ s }: RouteContext<unknown, unknown, unknown>) {
  return s.options.list();
}

export async function putOptions({ s, caller, body, ip }: RouteContext<PutOptionBody, unknown, unknown>) {
  const values = 'options' in body ? body.options : { [body.key]: body.value };
  if (Object.keys(values).length === 0) throw ApiError.badRequest('No options given');
  const changed = await s.options.update(values);
  // Secret values never enter the audit log, only the fact that they changed.
  const secretKeys = new Set(s.options.list().filter((o) => o.secret).map((o) => o.key));
  await audit(s, caller, ip, 'option.update', { type: 'option', id: changed.join(',') }, {
    values: Object.fromEntries(changed.map((k) => [k, secretKeys.has(k) ? '(secret)' : values[k]])),
  });
  return s.options.list().filter((o) => changed.includes(o.key));
}

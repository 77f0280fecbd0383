import { type OptionUpdateInput, optionUpdateInput, optionUpdates } from '@switchyard/domain';
import type { RouteContext } from '../../http/route.js';
import { audit } from '../audit.js';

// PUT /api/option/ takes one {key, value}, as one-hub's console sends it, or a whole settings
// section at once.
export const putOptionBody = optionUpdateInput;

export async function listOptions({ s }: RouteContext<unknown, unknown, unknown>) {
  return s.options.list();
}

export async function putOptions({ s, caller, body, ip }: RouteContext<OptionUpdateInput, unknown, unknown>) {
  const values: Record<string, string> = Object.fromEntries(optionUpdates(body));
  const changed = await s.options.update(values);
  // Secret values never enter the audit log, only the fact that they changed.
  const secretKeys = new Set(
    s.options
      .list()
      .filter((o) => o.secret)
      .map((o) => o.key),
  );
  await audit(
    s,
    caller,
    ip,
    'option.update',
    // A section saves many keys at once: they are named in the detail, the target says how many.
    { type: 'option', id: changed.length === 1 ? changed[0]! : `${changed.length} keys` },
    {
      values: Object.fromEntries(changed.map((k) => [k, secretKeys.has(k) ? '(secret)' : values[k]])),
    },
  );
  return s.options.list().filter((o) => changed.includes(o.key));
}

import type { Caller } from '../auth/authenticate.js';
import type { Services } from '../services.js';

/** Records an administrator's change in the audit log (who, what, on which target, from where). */
export async function audit(
  s: Services,
  caller: Caller | null,
  ip: string,
  action: string,
  target: { type: string; id: string | number },
  detail: Record<string, unknown> = {},
): Promise<void> {
  await s.repos.auditLogs.insert({
    created_at: s.clock.nowSeconds(),
    actor_id: caller?.user.id ?? 0,
    actor_name: caller?.user.username ?? '',
    action,
    target_type: target.type,
    target_id: String(target.id),
    detail: JSON.stringify(detail),
    ip,
  });
}

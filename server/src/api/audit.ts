import type { Caller } from '../auth/authenticate.js';
import type { Services } from '../services.js';

/** The audit log's short columns hold this many characters on PostgreSQL and MySQL. */
const SHORT_TEXT = 191;
const short = (text: string) => (text.length > SHORT_TEXT ? text.slice(0, SHORT_TEXT) : text);

/**
 * Records an administrator's change in the audit log (who, what, on which target, from where). The
 * short fields are cut to their columns: a change already made must not answer 500 for its record.
 */
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
    actor_name: short(caller?.user.username ?? ''),
    action: short(action),
    target_type: short(target.type),
    target_id: short(String(target.id)),
    detail: JSON.stringify(detail),
    ip: short(ip),
  });
}

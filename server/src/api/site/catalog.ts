import type { UserGroupView } from '@switchyard/domain';
import type { RouteContext } from '../../http/route.js';
import { presentUserGroup } from '../users/user-group-presenter.js';

type Ctx = RouteContext<unknown, unknown, unknown>;

/** GET /api/model_ownedby/: every model owner (reserved provider ids and the admin's own). */
export async function listModelOwners({ s }: Ctx) {
  return s.repos.modelOwners.all();
}

/** GET /api/user_group_map: public, enabled groups plus the caller's own, keyed by symbol. */
export async function userGroupMap({ s, caller }: Ctx) {
  const own = caller?.user.group;
  const out: Record<string, UserGroupView> = {};
  for (const g of await s.repos.userGroups.all()) {
    if (!g.enable) continue;
    if (!g.public && g.symbol !== own) continue;
    out[g.symbol] = presentUserGroup(g);
  }
  return out;
}

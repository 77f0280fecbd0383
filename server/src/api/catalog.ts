import type { RouteContext } from '../http/route.js';

type Ctx = RouteContext<unknown, unknown, unknown>;

/** GET /api/model_ownedby/: every model owner (reserved provider ids and the admin's own). */
export async function listModelOwners({ s }: Ctx) {
  return s.repos.modelOwners.all();
}

/** GET /api/user_group_map: public, enabled groups plus the caller's own, keyed by symbol. */
export async function userGroupMap({ s, caller }: Ctx) {
  const own = caller?.user.group;
  const out: Record<
    string,
    { id: number; symbol: string; name: string; ratio: number; public: boolean; api_rate: number }
  > = {};
  for (const g of await s.repos.userGroups.all()) {
    if (!g.enable) continue;
    if (!g.public && g.symbol !== own) continue;
    out[g.symbol] = {
      id: g.id,
      symbol: g.symbol,
      name: g.name,
      ratio: g.ratio,
      public: g.public === 1,
      api_rate: g.api_rate,
    };
  }
  return out;
}

import type { UserGroupView } from '@switchyard/domain';
import type { UserGroupRow } from '../../db/tables.js';

export function presentUserGroup(g: UserGroupRow): UserGroupView {
  return {
    id: g.id,
    symbol: g.symbol,
    name: g.name,
    ratio: g.ratio,
    api_rate: g.api_rate,
    public: g.public === 1,
    enable: g.enable === 1,
  };
}

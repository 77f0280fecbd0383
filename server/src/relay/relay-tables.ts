import { PriceBook } from '../billing/pricing/price-book.js';
import type { ChangeBus } from '../cache/change-bus.js';
import type { Repos } from '../db/repos.js';
import type { UserGroupRow } from '../db/tables.js';
import { toRoutableChannel } from './routing/routable-channel.js';
import { RoutingTable } from './routing/routing-table.js';

export const RELAY_TOPICS = ['channels', 'prices', 'groups'] as const;

/**
 * The relay's in-memory view of channels, prices and groups: the hot path never reads them from
 * the database. Rebuilt whole when any of them changes (on this node or, through the bus, another).
 */
export class RelayTables {
  routing = RoutingTable.empty();
  prices = new PriceBook([]);
  groups = new Map<string, UserGroupRow>();

  constructor(
    private readonly repos: Pick<Repos, 'channels' | 'prices' | 'userGroups'>,
    bus: ChangeBus,
    private readonly warn: (message: string) => void = () => {},
  ) {
    bus.subscribe(
      'channels',
      () => void this.reloadChannels().catch((e) => this.warn(`channel reload failed: ${e}`)),
    );
    bus.subscribe(
      'prices',
      () => void this.reloadPrices().catch((e) => this.warn(`price reload failed: ${e}`)),
    );
    bus.subscribe(
      'groups',
      () => void this.reloadGroups().catch((e) => this.warn(`group reload failed: ${e}`)),
    );
  }

  async reload(): Promise<void> {
    await Promise.all([this.reloadChannels(), this.reloadPrices(), this.reloadGroups()]);
  }

  async reloadChannels(): Promise<void> {
    const channels = (await this.repos.channels.allLive()).map(toRoutableChannel);
    for (const c of channels) for (const p of c.problems) this.warn(`channel #${c.id}: ${p}`);
    this.routing = new RoutingTable(channels);
  }

  async reloadPrices(): Promise<void> {
    this.prices = new PriceBook(await this.repos.prices.all(), (model, message) =>
      this.warn(`price ${model}: ${message}`),
    );
  }

  async reloadGroups(): Promise<void> {
    this.groups = new Map((await this.repos.userGroups.all()).map((g) => [g.symbol, g]));
  }
}

import { ChannelStatus } from '@switchyard/domain';
import { isWildcard, type RoutableChannel } from './routable-channel.js';

/** Channels of one priority for one (group, model) entry. */
export interface PriorityTier {
  readonly priority: number;
  /** Ordered by id, so a seeded random source picks the same channel on every build. */
  readonly channels: readonly RoutableChannel[];
}

/** Tiers of one (group, model) entry, highest priority first. */
export type TierList = readonly PriorityTier[];

interface GroupIndex {
  exact: Map<string, TierList>;
  /** Keyed by the prefix (the wildcard without its `*`). */
  wildcard: Map<string, TierList>;
  shortestPrefix: number;
  longestPrefix: number;
}

interface GroupBuilder {
  exact: Map<string, RoutableChannel[]>;
  wildcard: Map<string, RoutableChannel[]>;
}

function toTiers(channels: RoutableChannel[]): TierList {
  const byPriority = new Map<number, RoutableChannel[]>();
  for (const channel of channels) {
    const tier = byPriority.get(channel.priority);
    if (tier) tier.push(channel);
    else byPriority.set(channel.priority, [channel]);
  }
  return [...byPriority.entries()]
    .sort(([a], [b]) => b - a)
    .map(([priority, list]) => ({ priority, channels: list.sort((a, b) => a.id - b.id) }));
}

function finish(builder: GroupBuilder): GroupIndex {
  const exact = new Map<string, TierList>();
  for (const [model, list] of builder.exact) exact.set(model, toTiers(list));
  const wildcard = new Map<string, TierList>();
  let shortestPrefix = Number.POSITIVE_INFINITY;
  let longestPrefix = 0;
  for (const [prefix, list] of builder.wildcard) {
    wildcard.set(prefix, toTiers(list));
    shortestPrefix = Math.min(shortestPrefix, prefix.length);
    longestPrefix = Math.max(longestPrefix, prefix.length);
  }
  return { exact, wildcard, shortestPrefix, longestPrefix };
}

/**
 * Longest-prefix lookup by slicing the model from its full length down: each step is one map hit,
 * the bound is the model's length, and the answer does not depend on insertion order (in one-hub it
 * does).
 */
function longestWildcard(index: GroupIndex, model: string): TierList | undefined {
  if (index.wildcard.size === 0) return undefined;
  for (let len = Math.min(model.length, index.longestPrefix); len >= index.shortestPrefix; len--) {
    const tiers = index.wildcard.get(model.slice(0, len));
    if (tiers) return tiers;
  }
  return undefined;
}

/** True when the channel lists `model` exactly or through one of its wildcards. */
export function channelServesModel(channel: RoutableChannel, model: string): boolean {
  for (const entry of channel.models) {
    if (entry === model) return true;
    if (isWildcard(entry) && model.startsWith(entry.slice(0, -1))) return true;
  }
  return false;
}

/**
 * The in-memory index group -> model -> priority tiers -> channels, holding enabled channels only.
 * It is immutable: a channel change builds a new table (linear in channels x groups x models) and
 * swaps it in, so a request in flight keeps a consistent view.
 */
export class RoutingTable {
  private readonly groups: Map<string, GroupIndex>;
  private readonly enabled: Map<number, RoutableChannel>;

  constructor(channels: Iterable<RoutableChannel>) {
    const builders = new Map<string, GroupBuilder>();
    this.enabled = new Map();
    for (const channel of channels) {
      if (channel.status !== ChannelStatus.Enabled) continue;
      this.enabled.set(channel.id, channel);
      for (const group of channel.groups) {
        let builder = builders.get(group);
        if (!builder) {
          builder = { exact: new Map(), wildcard: new Map() };
          builders.set(group, builder);
        }
        for (const model of channel.models) {
          const wildcard = isWildcard(model);
          if (!wildcard && model.endsWith('*')) continue;
          const map = wildcard ? builder.wildcard : builder.exact;
          const key = wildcard ? model.slice(0, -1) : model;
          const list = map.get(key);
          if (list) list.push(channel);
          else map.set(key, [channel]);
        }
      }
    }
    this.groups = new Map();
    for (const [group, builder] of builders) this.groups.set(group, finish(builder));
  }

  static empty(): RoutingTable {
    return new RoutingTable([]);
  }

  /** Tiers serving the model in the group: the exact entry, else the longest matching wildcard. */
  tiers(group: string, model: string): TierList | undefined {
    const index = this.groups.get(group);
    if (!index) return undefined;
    return index.exact.get(model) ?? longestWildcard(index, model);
  }

  /** An enabled channel by id (pinning), whatever it serves. */
  channel(id: number): RoutableChannel | undefined {
    return this.enabled.get(id);
  }

  /** True when an enabled channel lists the group and serves the model in it. */
  serves(channelId: number, group: string, model: string): boolean {
    const channel = this.enabled.get(channelId);
    if (!channel) return false;
    return channel.groups.includes(group) && channelServesModel(channel, model);
  }

  /** Model names listed exactly in the group (wildcards excluded), sorted: for `/v1/models`. */
  models(group: string): string[] {
    const index = this.groups.get(group);
    return index ? [...index.exact.keys()].sort() : [];
  }

  /** Groups that have at least one enabled channel. */
  groupNames(): string[] {
    return [...this.groups.keys()].sort();
  }

  get size(): number {
    return this.enabled.size;
  }
}

import type { ChannelHealth } from './channel-health.js';
import type { RoutableChannel } from './routable-channel.js';
import type { RoutingTable, TierList } from './routing-table.js';

/** Returns a number in [0, 1), like Math.random; tests pass a seeded one. */
export type RandomSource = () => number;

export interface SelectRequest {
  group: string;
  /** The model the client asked for (after stripping any `#arg` suffix). */
  model: string;
  /** Channels this request already tried. */
  exclude?: ReadonlySet<number>;
  /** The request carries tools, so `only_chat` channels cannot serve it. */
  needsTools: boolean;
  /** `sk-KEY#<id>`: use only this channel. The caller checks that the token owner is an admin. */
  pinnedChannelId?: number;
  /** `sk-KEY#!<id>`: never use this channel. */
  excludedChannelId?: number;
  /** Unix milliseconds, for freeze checks. */
  now: number;
}

export interface Selection {
  channel: RoutableChannel;
  /** The model name to send upstream (after the channel's model mapping). */
  upstreamModel: string;
  /** The model to price and log: the requested one for a `+` mapping, else the upstream one. */
  billedModel: string;
}

/** Weighted random over channels with weights >= 1. */
export function pickWeighted(channels: readonly RoutableChannel[], random: RandomSource): RoutableChannel {
  let total = 0;
  for (const c of channels) total += c.weight;
  let r = random() * total;
  for (const c of channels) {
    r -= c.weight;
    if (r < 0) return c;
  }
  // Only reachable through float rounding at r ~ total: the last channel owns that end.
  return channels[channels.length - 1]!;
}

/**
 * Chooses the channel for one attempt: highest priority tier first, weighted random inside a tier,
 * the next lower tier only when every channel above is excluded, frozen, or unable to take tools;
 * when all are frozen, the one whose freeze ends first.
 */
export class ChannelSelector {
  constructor(
    private readonly table: () => RoutingTable,
    private readonly health: ChannelHealth,
    private readonly random: RandomSource = Math.random,
  ) {}

  async select(req: SelectRequest): Promise<Selection | undefined> {
    const table = this.table();
    const usable = (c: RoutableChannel) =>
      !(req.exclude?.has(c.id) ?? false) && c.id !== req.excludedChannelId && !(req.needsTools && c.onlyChat);

    if (req.pinnedChannelId !== undefined) {
      // An admin pins a channel to test it, so a freeze does not hide it; being enabled, serving the
      // group and model, and taking tools if needed still count.
      const channel = table.channel(req.pinnedChannelId);
      if (!channel || !table.serves(channel.id, req.group, req.model) || !usable(channel)) return undefined;
      return selectionOf(channel, req.model);
    }

    const tiers = table.tiers(req.group, req.model);
    if (!tiers) return undefined;
    // Most attempts exclude nothing: then the tiers are the candidates as they stand.
    const filtering = (req.exclude?.size ?? 0) > 0 || req.excludedChannelId !== undefined || req.needsTools;
    const candidates = filtering ? survivors(tiers, usable) : tiers.map((t) => t.channels);
    if (candidates.length === 0) return undefined;
    // One health lookup for all tiers: with Redis that is one round trip per attempt, not per tier.
    const ids: number[] = [];
    for (const tier of candidates) for (const c of tier) ids.push(c.id);
    const frozen = await this.health.frozenAmong(ids, req.model, req.now);
    for (const tier of candidates) {
      const open = frozen.size === 0 ? tier : tier.filter((c) => !frozen.has(c.id));
      if (open.length === 0) continue;
      const channel = open.length === 1 ? open[0]! : pickWeighted(open, this.random);
      return selectionOf(channel, req.model);
    }
    // Every candidate is cooling down: a refusal would take a single-channel model offline for the
    // whole cooldown after one failure, so the one whose cooldown ends first gets the call.
    let soonest: RoutableChannel | undefined;
    let soonestEnd = Number.POSITIVE_INFINITY;
    for (const tier of candidates) {
      for (const c of tier) {
        const end = frozen.get(c.id) ?? 0;
        if (end < soonestEnd) {
          soonest = c;
          soonestEnd = end;
        }
      }
    }
    return soonest ? selectionOf(soonest, req.model) : undefined;
  }

  /** True when some enabled channel serves the model in the group (frozen or not). */
  hasChannel(group: string, model: string): boolean {
    return (this.table().tiers(group, model)?.length ?? 0) > 0;
  }
}

/**
 * The channel with its model mapping applied (a target that starts with `+` bills the requested
 * model, any other the mapped one). Built whole: a key after a spread in a literal is slow in V8.
 */
function selectionOf(channel: RoutableChannel, requested: string): Selection {
  const target = channel.modelMapping.get(requested);
  if (!target) return { channel, upstreamModel: requested, billedModel: requested };
  return {
    channel,
    upstreamModel: target.upstream,
    billedModel: target.billRequested ? requested : target.upstream,
  };
}

function survivors(tiers: TierList, usable: (c: RoutableChannel) => boolean): RoutableChannel[][] {
  const out: RoutableChannel[][] = [];
  for (const tier of tiers) {
    const open = tier.channels.filter(usable);
    if (open.length > 0) out.push(open);
  }
  return out;
}

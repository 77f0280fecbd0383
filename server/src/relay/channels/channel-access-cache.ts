import type { RoutableChannel } from '../routing/routable-channel.js';
import type { ChannelAccess } from './channel-transports.js';

/**
 * A channel's opened settings (decrypted key, parsed plugin and paths) per routing-table entry.
 * The routing table replaces its entries when channels change, so an entry's settings never go
 * stale, and dropped entries take their settings with them.
 */
export class ChannelAccessCache {
  private readonly opened = new WeakMap<RoutableChannel, ChannelAccess>();

  constructor(private readonly open: (channel: RoutableChannel) => ChannelAccess) {}

  get(channel: RoutableChannel): ChannelAccess {
    let access = this.opened.get(channel);
    if (!access) {
      access = this.open(channel);
      this.opened.set(channel, access);
    }
    return access;
  }
}

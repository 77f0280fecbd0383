import type { ChannelAccess } from '../relay/channels/channel-transports.js';
import { toRoutableChannel } from '../relay/routing/routable-channel.js';
import type { Services } from '../services.js';

/**
 * The channel a task was submitted to, opened for a follow-up call (poll, image, seed): from the
 * routing table when enabled, else from its row, since a task outlives a channel being switched
 * off. Undefined when the channel was deleted.
 */
export async function channelOfTask(s: Services, channelId: number): Promise<ChannelAccess | undefined> {
  const routable = s.relay.tables.routing.channel(channelId);
  if (routable) return s.relay.access.get(routable);
  const row = await s.repos.channels.byId(channelId);
  if (!row) return undefined;
  return s.relay.access.get(toRoutableChannel(row));
}

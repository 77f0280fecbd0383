import type { ChannelAccess } from '../relay/channels/channel-transports.js';
import type { Services } from '../services.js';

// What the poller asks of each task family: bring a channel's unfinished tasks up to date.

/** A task as the poller follows it, whichever table holds it. */
export interface PolledTask {
  table: 'tasks' | 'midjourneys';
  rowId: number;
  upstreamId: string;
  userId: number;
  tokenId: number;
  channelId: number;
  quota: number;
  submitTime: number;
  /** `mj_imagine`, `suno MUSIC`, `kling text2video`: for the refund's log row. */
  what: string;
  /** Family details the poll needs (Kling's class and action). */
  action: string;
  properties: string;
}

/** What the upstream said of one task: the row's new columns. */
export interface TaskReport {
  upstreamId: string;
  patch: Record<string, unknown>;
}

export interface TaskFamily {
  name: 'midjourney' | 'suno' | 'kling';
  /**
   * Asks the channel about these tasks (in batches where the API has them) and answers what it
   * reported; tasks it did not mention are left out. Throws when the channel could not be asked.
   */
  poll(s: Services, channel: ChannelAccess, tasks: readonly PolledTask[]): Promise<TaskReport[]>;
}

import type { ChannelAccess } from '../../relay/channels/channel-transports.js';
import type { Services } from '../../services.js';
import type { PolledTask, TaskFamily, TaskReport } from '../task-family.js';
import { callTaskUpstream, describeReply, joinUrl, TaskUpstreamError } from '../task-upstream.js';
import { mjRowUpdate } from './mj-wire.js';

/** Ids midjourney-proxy is asked about in one list-by-condition call. */
const IDS_PER_CALL = 100;

export const midjourneyFamily: TaskFamily = {
  name: 'midjourney',
  async poll(s: Services, channel: ChannelAccess, tasks: readonly PolledTask[]): Promise<TaskReport[]> {
    const reports: TaskReport[] = [];
    for (let i = 0; i < tasks.length; i += IDS_PER_CALL) {
      const ids = tasks.slice(i, i + IDS_PER_CALL).map((t) => t.upstreamId);
      const answer = await callTaskUpstream(s, channel, {
        method: 'POST',
        url: joinUrl(channel.baseUrl, 'mj/task/list-by-condition'),
        headers: { 'mj-api-secret': channel.key },
        body: { ids },
      });
      if (answer.status !== 200 || !Array.isArray(answer.json))
        throw new TaskUpstreamError(describeReply(answer));
      for (const dto of answer.json) {
        const update = mjRowUpdate(dto);
        if (update && ids.includes(update.id)) reports.push({ upstreamId: update.id, patch: update.patch });
      }
    }
    return reports;
  },
};

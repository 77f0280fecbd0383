import type { ChannelAccess } from '../../relay/channels/channel-transports.js';
import type { Services } from '../../services.js';
import type { PolledTask, TaskFamily, TaskReport } from '../task-family.js';
import { callTaskUpstream, describeReply, joinUrl, TaskUpstreamError } from '../task-upstream.js';
import { sunoRowUpdate } from './suno-wire.js';

const IDS_PER_CALL = 100;

export const sunoFamily: TaskFamily = {
  name: 'suno',
  async poll(s: Services, channel: ChannelAccess, tasks: readonly PolledTask[]): Promise<TaskReport[]> {
    const reports: TaskReport[] = [];
    for (let i = 0; i < tasks.length; i += IDS_PER_CALL) {
      const ids = tasks.slice(i, i + IDS_PER_CALL).map((t) => t.upstreamId);
      const answer = await callTaskUpstream(s, channel, {
        method: 'POST',
        url: joinUrl(channel.baseUrl, 'suno/fetch'),
        headers: { authorization: `Bearer ${channel.key}` },
        body: { ids },
      });
      const body = answer.json as { code?: unknown; data?: unknown } | undefined;
      if (answer.status !== 200 || body?.code !== 'success' || !Array.isArray(body.data))
        throw new TaskUpstreamError(describeReply(answer));
      for (const dto of body.data) {
        const update = sunoRowUpdate(dto);
        if (update && ids.includes(update.id)) reports.push({ upstreamId: update.id, patch: update.patch });
      }
    }
    return reports;
  },
};

import type { ChannelAccess } from '../../relay/channels/channel-transports.js';
import type { Services } from '../../services.js';
import type { PolledTask, TaskFamily, TaskReport } from '../task-family.js';
import { callTaskUpstream, describeReply, joinUrl, TaskUpstreamError } from '../task-upstream.js';
import { klingRowUpdate } from './kling-wire.js';

function classOf(task: PolledTask): string {
  try {
    const p = JSON.parse(task.properties) as { class?: unknown };
    return typeof p.class === 'string' ? p.class : 'videos';
  } catch {
    return 'videos';
  }
}

/** Kling has no batch query: one GET per task, the same token for all. */
export const klingFamily: TaskFamily = {
  name: 'kling',
  async poll(s: Services, channel: ChannelAccess, tasks: readonly PolledTask[]): Promise<TaskReport[]> {
    const token = await s.tasks.klingTokens.token(channel.key);
    const reports: TaskReport[] = [];
    for (const task of tasks) {
      const answer = await callTaskUpstream(s, channel, {
        method: 'GET',
        url: joinUrl(
          channel.baseUrl,
          `v1/${classOf(task)}/${encodeURIComponent(task.action)}/${encodeURIComponent(task.upstreamId)}`,
        ),
        headers: { authorization: `Bearer ${token}` },
      });
      if (answer.status !== 200) throw new TaskUpstreamError(describeReply(answer));
      const update = klingRowUpdate(answer.json);
      if (update && update.id === task.upstreamId)
        reports.push({ upstreamId: update.id, patch: update.patch });
    }
    return reports;
  },
};

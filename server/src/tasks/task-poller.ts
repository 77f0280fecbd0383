import { TaskStatus } from '@switchyard/domain';
import type { MidjourneyRow } from '../db/queries/midjourneys.js';
import { failAndRefund, type TaskFailure } from '../db/queries/task-refunds.js';
import type { TaskRow } from '../db/queries/tasks.js';
import type { Services } from '../services.js';
import { klingFamily } from './kling/kling-poll.js';
import { KLING_PLATFORM } from './kling/kling-wire.js';
import { billedModel } from './midjourney/mj-actions.js';
import { midjourneyFamily } from './midjourney/mj-poll.js';
import { sunoFamily } from './suno/suno-poll.js';
import { SUNO_PLATFORM } from './suno/suno-wire.js';
import { channelOfTask } from './task-channels.js';
import type { PolledTask, TaskFamily } from './task-family.js';
import type { PollReport, TaskPolling } from './task-polling.js';

// Brings unfinished tasks up to date: each channel's tasks asked about together, a channel that
// fails is left alone for a while (doubling up to a limit), a task unfinished past the timeout is
// failed. A task that fails is refunded its charge, once, with a system log row (task-refunds.ts).
// It runs on one node at a time: each run first holds the `task-poller` job lease.

export interface PollerLease {
  hold(): Promise<boolean>;
  release(): Promise<void>;
}

export interface TaskPollerOptions {
  /** A task unfinished this long after its submit fails and is refunded. */
  timeoutSeconds: number;
  /** Unfinished rows read per table per run. Default 500. */
  batchSize?: number;
  /** First pause of a channel that failed; doubles per failure up to `backoffMaxMs`. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
}

const FAMILIES: Record<string, TaskFamily> = {
  midjourney: midjourneyFamily,
  [SUNO_PLATFORM]: sunoFamily,
  [KLING_PLATFORM]: klingFamily,
};

function fromMidjourney(row: MidjourneyRow): PolledTask {
  const mode = row.mode === 'turbo' ? 'mj-turbo' : row.mode === 'relax' ? 'mj-relax' : undefined;
  return {
    table: 'midjourneys',
    rowId: row.id,
    upstreamId: row.mj_id,
    userId: row.user_id,
    tokenId: row.token_id,
    channelId: row.channel_id,
    quota: row.quota,
    submitTime: row.submit_time,
    what: billedModel(mode, row.action || 'unknown'),
    action: row.action,
    properties: row.properties,
  };
}

function fromTask(row: TaskRow): PolledTask {
  return {
    table: 'tasks',
    rowId: row.id,
    upstreamId: row.task_id,
    userId: row.user_id,
    tokenId: row.token_id,
    channelId: row.channel_id,
    quota: row.quota,
    submitTime: row.submit_time,
    what: `${row.platform} ${row.action}`,
    action: row.action,
    properties: row.properties,
  };
}

export class TaskPoller implements TaskPolling {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private readonly backoff = new Map<string, { failures: number; untilMs: number }>();
  /** Where the next run reads on from, per table: more than a batch of unfinished tasks take turns. */
  private readonly cursor = { midjourneys: 0, tasks: 0 };
  private readonly batchSize: number;
  private readonly backoffBaseMs: number;
  private readonly backoffMaxMs: number;

  constructor(
    private readonly services: () => Services,
    private readonly lease: PollerLease,
    private readonly options: TaskPollerOptions,
    private readonly onError: (message: string) => void,
  ) {
    this.batchSize = options.batchSize ?? 500;
    this.backoffBaseMs = options.backoffBaseMs ?? 30_000;
    this.backoffMaxMs = options.backoffMaxMs ?? 15 * 60_000;
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.tick(), intervalMs);
    this.timer.unref();
  }

  /**
   * One turn: this node polls if it holds the lease, and not while its previous run goes on.
   * Answers undefined when it did not poll.
   */
  async tick(): Promise<PollReport | undefined> {
    if (this.running) return undefined;
    const run = (async () => {
      if (!(await this.lease.hold())) return undefined;
      return this.pollOnce();
    })();
    this.running = run;
    try {
      return await run;
    } catch (err) {
      this.onError(`task poll failed: ${String(err)}`);
      return undefined;
    } finally {
      this.running = undefined;
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => {});
    await this.lease.release().catch(() => {});
  }

  /** Polls every unfinished task once (the caller holds the lease). */
  async pollOnce(): Promise<PollReport> {
    const s = this.services();
    // A submit's settlement is committed before its task can be refunded.
    await s.relay.ledger.flush();
    const [mj, others] = await Promise.all([
      s.repos.midjourneys.unfinished(this.batchSize, this.cursor.midjourneys),
      s.repos.tasks.unfinished(this.batchSize, this.cursor.tasks),
    ]);
    // A short batch reached the end: the next run starts from the first again.
    this.cursor.midjourneys = mj.length < this.batchSize ? 0 : (mj.at(-1)?.id ?? 0);
    this.cursor.tasks = others.length < this.batchSize ? 0 : (others.at(-1)?.id ?? 0);
    const report: PollReport = { asked: 0, updated: 0, refunded: 0, channelsFailed: 0 };
    const now = s.clock.nowSeconds();
    const groups = new Map<string, { family: TaskFamily; channelId: number; tasks: PolledTask[] }>();
    const add = (familyName: string, task: PolledTask) => {
      const family = FAMILIES[familyName];
      if (!family) return;
      const key = `${familyName}:${task.channelId}`;
      let g = groups.get(key);
      if (!g) {
        g = { family, channelId: task.channelId, tasks: [] };
        groups.set(key, g);
      }
      g.tasks.push(task);
    };
    for (const row of mj) add('midjourney', fromMidjourney(row));
    for (const row of others) add(row.platform, fromTask(row));

    for (const [key, group] of groups) {
      const live: PolledTask[] = [];
      for (const task of group.tasks) {
        if (now - task.submitTime >= this.options.timeoutSeconds) {
          if (
            await this.fail(
              s,
              task,
              `timed out: unfinished ${this.options.timeoutSeconds} s after its submit`,
              now,
            )
          )
            report.refunded++;
        } else live.push(task);
      }
      if (live.length === 0) continue;
      const pause = this.backoff.get(key);
      if (pause && pause.untilMs > s.clock.nowMs()) {
        report.channelsFailed++;
        continue;
      }
      const channel = await channelOfTask(s, group.channelId);
      if (!channel) {
        for (const task of live)
          if (await this.fail(s, task, 'its channel was deleted', now)) report.refunded++;
        continue;
      }
      report.asked += live.length;
      let reports: Awaited<ReturnType<TaskFamily['poll']>>;
      try {
        reports = await group.family.poll(s, channel, live);
        this.backoff.delete(key);
      } catch (err) {
        const failures = (pause?.failures ?? 0) + 1;
        const wait = Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** (failures - 1));
        this.backoff.set(key, { failures, untilMs: s.clock.nowMs() + wait });
        report.channelsFailed++;
        this.onError(
          `polling ${group.family.name} channel #${group.channelId} failed (${failures} in a row, next try in ${Math.round(wait / 1000)} s): ${err instanceof Error ? err.message : String(err)}`,
        );
        continue;
      }
      const byId = new Map(live.map((t) => [t.upstreamId, t]));
      for (const r of reports) {
        const task = byId.get(r.upstreamId);
        if (!task) continue;
        if (r.patch.status === TaskStatus.Failure) {
          const { status: _s, fail_reason, ...extra } = r.patch;
          const reason =
            typeof fail_reason === 'string' && fail_reason !== ''
              ? fail_reason
              : 'the upstream reported a failure';
          if (await this.fail(s, task, reason, now, extra)) report.refunded++;
          continue;
        }
        const patch = { ...r.patch };
        if (r.patch.status === TaskStatus.Success && patch.finish_time === undefined) patch.finish_time = now;
        if (task.table === 'tasks') patch.updated_at = now;
        const written =
          task.table === 'tasks'
            ? await s.repos.tasks.progress(task.rowId, patch)
            : await s.repos.midjourneys.progress(task.rowId, patch);
        if (written) report.updated++;
      }
    }
    if (report.refunded > 0) {
      // Balances and token states changed outside the ledger: caches read them again.
      await s.bus.publish('users').catch(() => {});
      await s.bus.publish('tokens').catch(() => {});
    }
    return report;
  }

  private async fail(
    s: Services,
    task: PolledTask,
    reason: string,
    now: number,
    extra?: Record<string, unknown>,
  ): Promise<boolean> {
    const failure: TaskFailure = {
      table: task.table,
      id: task.rowId,
      userId: task.userId,
      tokenId: task.tokenId,
      channelId: task.channelId,
      quota: task.quota,
      reason,
      now,
      what: task.what,
      upstreamId: task.upstreamId,
      ...(extra ? { extra } : {}),
    };
    return failAndRefund(s.database.db, failure);
  }
}

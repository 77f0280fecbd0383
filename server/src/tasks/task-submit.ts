import { isAdminRole, LogType, providerById, TaskStatus } from '@switchyard/domain';
import type { FastifyBaseLogger } from 'fastify';
import { computeQuota } from '../billing/pricing/quota-math.js';
import { emptyUsage } from '../billing/pricing/usage.js';
import type { NewTask } from '../db/queries/tasks.js';
import { hasUnstorableText, storableText } from '../db/storable-text.js';
import type { ChannelAccess } from '../relay/channels/channel-transports.js';
import { checkGroupRate } from '../relay/inbound/group-rate-limit.js';
import type { RelayCaller } from '../relay/inbound/token-auth.js';
import { RelayError, relayErrors } from '../relay/relay-error.js';
import { priceOf, reserveForCaller } from '../relay/relay-pipeline.js';
import type { Selection } from '../relay/routing/channel-selector.js';
import type { Services } from '../services.js';
import { TaskUpstreamError } from './task-upstream.js';

// One submit of an asynchronous task (Midjourney, Suno, Kling), billed through the same ledger as
// chat: reserve the price of one call, send, then settle the whole price when the upstream took
// the task, or release the reserve when it did not. The poller gives the charge back if the task
// fails later (task-poller.ts).

/** What the upstream answered a submit. */
export type SubmitOutcome<A> =
  | { ok: true; upstreamId: string; accepted: A }
  | {
      /** The upstream refused the task: its answer goes to the client as is, nothing is charged. */
      ok: false;
      status: number;
      body: unknown;
    };

export interface TaskSubmit<A> {
  /** The catalog type of channel that serves this family (34, 41, 53). */
  channelType: number;
  /** The model priced and logged (`mj_imagine`, `chirp-v3-5`, `kling-video_kling-v1_std_5`). */
  model: string;
  /** Sends the task to one channel. Throws TaskUpstreamError when the channel could not be reached. */
  send(channel: ChannelAccess, selection: Selection): Promise<SubmitOutcome<A>>;
  /** Writes the task row of an accepted submit; answers the row's id. */
  record(accepted: A, upstreamId: string, selection: Selection, quota: number): Promise<number>;
  /** The ledger charged other than the row says (a reserve lost before its settlement): the row follows. */
  charged(rowId: number, quota: number): Promise<unknown>;
  /** For the consume log: what was submitted (`Midjourney IMAGINE`). */
  describe: string;
}

export type SubmitResult<A> =
  | { ok: true; upstreamId: string; accepted: A; rowId: number; quota: number; channelId: number }
  | { ok: false; status: number; body: unknown };

/**
 * An upstream answer that is the channel's fault, not the client's, as the client is told it: its
 * credentials refused (the client's key is not the problem), busy, or broken. Undefined for the
 * client's own error.
 */
function channelFault(status: number): RelayError | undefined {
  if (status === 401 || status === 403)
    return new RelayError(
      502,
      'upstream_error',
      'upstream_auth_failed',
      'The upstream provider refused the gateway',
    );
  if (status === 429)
    return new RelayError(
      429,
      'rate_limit_error',
      'upstream_busy',
      'The upstream provider is busy; retry later',
    );
  if (status >= 500 || status < 400)
    return new RelayError(502, 'upstream_error', 'upstream_error', `The upstream answered ${status}`);
  return undefined;
}

/** The token's user may see any task: administrators. */
/** The `tasks` row of a task the upstream just took (Suno, Kling): submitted, nothing reported yet. */
export function submittedTaskRow(t: {
  now: number;
  platform: string;
  upstreamId: string;
  caller: RelayCaller;
  selection: Selection;
  quota: number;
  action: string;
  properties: string;
  data: string;
}): NewTask {
  return {
    created_at: t.now,
    updated_at: t.now,
    task_id: storableText(t.upstreamId).slice(0, 190),
    platform: t.platform,
    user_id: t.caller.user.id,
    token_id: t.caller.token.id,
    channel_id: t.selection.channel.id,
    quota: t.quota,
    action: t.action,
    status: TaskStatus.Submitted,
    fail_reason: '',
    submit_time: t.now,
    start_time: 0,
    finish_time: 0,
    progress: 0,
    properties: t.properties,
    data: t.data,
    notify_hook: '',
  };
}

export function seesEveryTask(caller: RelayCaller): boolean {
  return isAdminRole(caller.user.role);
}

async function selectOfType(
  s: Services,
  caller: RelayCaller,
  model: string,
  channelType: number,
  tried: Set<number>,
): Promise<Selection | undefined> {
  for (;;) {
    const selection = await s.relay.selector.select({
      group: caller.group.symbol,
      model,
      exclude: tried,
      needsTools: false,
      pinnedChannelId: caller.pinChannelId,
      excludedChannelId: caller.excludeChannelId,
      now: s.clock.nowMs(),
    });
    if (!selection) return undefined;
    tried.add(selection.channel.id);
    if (selection.channel.type === channelType) return selection;
    // A pinned channel of another type is not retried with another one.
    if (caller.pinChannelId !== undefined) return undefined;
  }
}

/**
 * Runs one submit: model and rate checks, price, channel, reserve, upstream, row, settlement.
 * Errors are RelayErrors; the family's routes turn them into their own error shape.
 */
export async function submitTask<A>(
  s: Services,
  caller: RelayCaller,
  ip: string,
  log: FastifyBaseLogger,
  task: TaskSubmit<A>,
): Promise<SubmitResult<A>> {
  const r = s.relay;
  const model = task.model;
  if (hasUnstorableText(model)) throw relayErrors.badRequest('the model name holds invalid text', 'model');
  if (caller.allowedModels && !caller.allowedModels.has(model)) throw relayErrors.modelNotAllowed(model);
  const rate = await checkGroupRate(
    s.limiter,
    r.bucket,
    caller.group.symbol,
    caller.group.api_rate,
    caller.user.id,
  );
  if (!rate.allowed) throw relayErrors.rateLimited(rate.retryAfterSeconds);
  const price = priceOf(s, model);
  if (!price) {
    if (!r.selector.hasChannel(caller.group.symbol, model))
      throw relayErrors.noChannelAtAll(caller.group.symbol, model);
    throw relayErrors.unpriced(model);
  }
  const tried = new Set<number>();
  let selection = await selectOfType(s, caller, model, task.channelType, tried);
  if (!selection) {
    const kind = providerById(task.channelType)?.name ?? String(task.channelType);
    throw new RelayError(
      503,
      'server_error',
      'no_available_channel',
      `No ${kind} channel serves ${model} in group ${caller.group.symbol}`,
    );
  }
  // One call at the model's price (a per-call price; a token price bills one prompt token).
  const amount = computeQuota(price, caller.group.ratio, { ...emptyUsage(), inputTokens: 1 }).quota;
  const reservation = await reserveForCaller(r.ledger, caller, amount);
  const startedMs = s.clock.nowMs();
  const o = s.options.current;
  const attempts = Math.max(1, o.RetryTimes + 1);
  let outcome: SubmitOutcome<A> | undefined;
  let lastError: RelayError | undefined;
  try {
    for (let i = 0; i < attempts && selection; i++) {
      try {
        outcome = await task.send(r.access.get(selection.channel), selection);
      } catch (err) {
        if (!(err instanceof TaskUpstreamError)) throw err;
        log.warn(
          { channel: selection.channel.id, err: err.message },
          'task submit could not reach the upstream',
        );
        lastError = new RelayError(
          502,
          'upstream_error',
          'upstream_unreachable',
          `Upstream error: ${err.message}`,
        );
        outcome = undefined;
      }
      if (outcome?.ok) break;
      if (outcome) {
        const fault = channelFault(outcome.status);
        // The client's own refusal (a banned prompt, a bad field) goes back to it as the upstream said it.
        if (!fault) break;
        log.warn(
          { channel: selection.channel.id, status: outcome.status },
          'task submit refused by the upstream',
        );
        lastError = fault;
      }
      // Not taken: the channel cools down and another may take the task.
      await r.health.freeze(selection.channel.id, model, o.RetryCooldownSeconds);
      if (caller.pinChannelId !== undefined) break;
      const next = await selectOfType(s, caller, model, task.channelType, tried);
      if (!next) break;
      selection = next;
    }
  } catch (err) {
    await r.ledger.release(reservation);
    throw err;
  }
  if (!outcome?.ok) {
    await r.ledger.release(reservation);
    if (outcome && !channelFault(outcome.status)) return outcome;
    throw (
      lastError ?? new RelayError(502, 'upstream_error', 'upstream_error', 'The upstream refused the task')
    );
  }
  const chosen = selection!;
  let rowId: number;
  try {
    // Written as charging nothing until the charge is in the settlement journal: a process killed in
    // between leaves a task whose failure gives back nothing, as nothing was taken.
    rowId = await task.record(outcome.accepted, outcome.upstreamId, chosen, 0);
  } catch (err) {
    // The upstream has the task but the gateway could not record it: nothing is charged for a task
    // no poller will follow; the error says so in the log.
    log.error(
      { err, upstreamId: outcome.upstreamId },
      'task taken upstream but its row could not be written',
    );
    await r.ledger.release(reservation);
    throw err;
  }
  const nowMs = s.clock.nowMs();
  const settling = r.ledger.settle(
    reservation,
    amount,
    {
      user_id: caller.user.id,
      created_at: Math.floor(startedMs / 1000),
      type: LogType.Consume,
      content: `${task.describe} task ${outcome.upstreamId}`,
      username: caller.user.username,
      token_id: caller.token.id,
      token_name: caller.token.name,
      model_name: model,
      prompt_tokens: 0,
      completion_tokens: 0,
      channel_id: chosen.channel.id,
      request_time: nowMs - startedMs,
      first_response_time: nowMs - startedMs,
      is_stream: 0,
      source_ip: ip,
      group: caller.group.symbol,
      metadata: JSON.stringify({
        group_name: caller.group.symbol,
        price_type: price.type,
        group_ratio: caller.group.ratio,
        task_id: outcome.upstreamId,
        task_row: rowId,
      }),
    },
    { recordLog: s.options.current.LogConsumeEnabled },
  );
  // A settlement the database refused is kept as a dead letter, charged; one not made yet is made
  // from the journal at the next start. Either way the task was taken: the client hears so.
  const settledOrNot = settling.catch((err: unknown) => {
    log.error(
      { err, upstreamId: outcome.upstreamId },
      'task settlement failed; the journal or dead letters keep it',
    );
    return undefined;
  });
  // In the journal now (made again at the next start if the process dies), so the row may say so.
  r.ledger.flushJournal();
  if (amount > 0) await task.charged(rowId, amount);
  const settled = await settledOrNot;
  r.quotaReminder.settled(caller.user.id);
  // The refund of a failed task gives back what was taken, never more.
  if (settled && settled.charged !== amount) await task.charged(rowId, settled.charged);
  return {
    ok: true,
    upstreamId: outcome.upstreamId,
    accepted: outcome.accepted,
    rowId,
    quota: settled?.charged ?? amount,
    channelId: chosen.channel.id,
  };
}

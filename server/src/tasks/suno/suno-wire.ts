import { TaskStatus } from '@switchyard/domain';
import { withoutUserIds } from '../../api/tasks/task-presenter.js';
import type { TaskRow } from '../../db/queries/tasks.js';
import { storableText } from '../../db/storable-text.js';
import type { TasksTable } from '../../db/tables.js';
import { boundedJson } from '../midjourney/mj-wire.js';

// The Suno-API task object (`POST /suno/fetch`, `GET /suno/fetch/{id}`): `{task_id, action,
// status, fail_reason, submit_time, start_time, finish_time, progress: "100%", data}`, wrapped in
// `{code: "success", message, data}`. Times are unix seconds on both sides.

export const SUNO_PLATFORM = 'suno';

export function sunoEnvelope(data: unknown) {
  return { code: 'success', message: '', data };
}

function json(text: string, fallback: unknown): unknown {
  try {
    return text ? JSON.parse(text) : fallback;
  } catch {
    return fallback;
  }
}

/** A task row as Suno-API answers it; a song's clips name the Suno account (`user_id`): left out. */
export function presentSunoTask(row: TaskRow) {
  return {
    task_id: row.task_id,
    notify_hook: row.notify_hook,
    action: row.action,
    status: row.status,
    fail_reason: row.fail_reason,
    submit_time: row.submit_time,
    start_time: row.start_time,
    finish_time: row.finish_time,
    progress: `${row.progress}%`,
    data: withoutUserIds(json(row.data, null)),
  };
}

const KNOWN_STATUSES: ReadonlySet<string> = new Set(Object.values(TaskStatus));
/** Deployments that answer the words of Suno itself instead of the task states. */
const STATUS_WORDS: Record<string, string> = {
  SUBMITTED: TaskStatus.Submitted,
  QUEUEING: TaskStatus.Queued,
  PROCESSING: TaskStatus.InProgress,
  STREAMING: TaskStatus.InProgress,
  COMPLETE: TaskStatus.Success,
  FAILED: TaskStatus.Failure,
  ERROR: TaskStatus.Failure,
};

function seconds(v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return 0;
  // Some deployments answer milliseconds.
  return Math.floor(v > 1e12 ? v / 1000 : v);
}

/** `"45%"` or 45 -> 45, within 0..100. */
export function percent(v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number.parseFloat(v) : Number.NaN;
  if (!Number.isFinite(n)) return 0;
  return Math.max(0, Math.min(100, Math.round(n)));
}

/** What an upstream task object changes in its row; undefined for something that is no task. */
export function sunoRowUpdate(dto: unknown): { id: string; patch: Partial<TasksTable> } | undefined {
  if (!dto || typeof dto !== 'object') return undefined;
  const d = dto as Record<string, unknown>;
  const id = typeof d.task_id === 'string' ? d.task_id : typeof d.id === 'string' ? d.id : '';
  if (!id) return undefined;
  const raw = typeof d.status === 'string' ? d.status.toUpperCase() : '';
  const status = KNOWN_STATUSES.has(raw) ? raw : (STATUS_WORDS[raw] ?? TaskStatus.Unknown);
  const patch: Partial<TasksTable> = {
    status,
    progress: status === TaskStatus.Success ? 100 : percent(d.progress),
    fail_reason: typeof d.fail_reason === 'string' ? storableText(d.fail_reason).slice(0, 2000) : '',
  };
  const start = seconds(d.start_time);
  const finish = seconds(d.finish_time);
  if (start) patch.start_time = start;
  if (finish) patch.finish_time = finish;
  if (d.data !== undefined) patch.data = boundedJson(d.data, 'null', 1_000_000);
  return { id, patch };
}

import { TaskStatus } from '@switchyard/domain';
import type { TaskRow } from '../../db/queries/tasks.js';
import { storableText } from '../../db/storable-text.js';
import type { TasksTable } from '../../db/tables.js';
import { boundedJson } from '../midjourney/mj-wire.js';

// Kling's task object: `{code: 0, message, request_id, data: {task_id, task_status, task_status_msg,
// created_at, updated_at (ms), task_result: {videos: [{id, url, duration}]}}}`. The row keeps
// Kling's latest whole answer, as one-hub's rows do, and a fetch answers it as it is.

export const KLING_PLATFORM = 'kling';
export const KLING_VIDEO_ACTIONS: ReadonlySet<string> = new Set(['text2video', 'image2video']);

const STATUS: Record<string, string> = {
  submitted: TaskStatus.Submitted,
  processing: TaskStatus.InProgress,
  succeed: TaskStatus.Success,
  failed: TaskStatus.Failure,
};

/** The billed model: `kling-video_<model>_<mode>_<duration>`, defaults kling-v1, std, 5. */
export function klingModel(body: Record<string, unknown>): string {
  const pick = (v: unknown, fallback: string) =>
    (typeof v === 'string' && v.trim() !== '') || typeof v === 'number' ? String(v).trim() : fallback;
  const model = pick(body.model_name ?? body.model, 'kling-v1');
  return `kling-video_${model}_${pick(body.mode, 'std')}_${pick(body.duration, '5')}`;
}

function json(text: string, fallback: unknown): unknown {
  try {
    return text ? JSON.parse(text) : fallback;
  } catch {
    return fallback;
  }
}

export function presentKlingTask(row: TaskRow, requestId: string) {
  const stored = json(row.data, null);
  if (stored && typeof stored === 'object' && 'data' in stored) return stored;
  return { code: 0, message: 'SUCCEED', request_id: requestId, data: stored };
}

/** What Kling's answer to a task query changes in its row; undefined when it holds no task. */
export function klingRowUpdate(answer: unknown): { id: string; patch: Partial<TasksTable> } | undefined {
  if (!answer || typeof answer !== 'object') return undefined;
  const a = answer as Record<string, unknown>;
  if (a.code !== 0 || !a.data || typeof a.data !== 'object') return undefined;
  const d = a.data as Record<string, unknown>;
  const id = typeof d.task_id === 'string' ? d.task_id : '';
  if (!id) return undefined;
  const status = STATUS[String(d.task_status)] ?? TaskStatus.Unknown;
  const patch: Partial<TasksTable> = {
    status,
    progress: status === TaskStatus.Success ? 100 : status === TaskStatus.InProgress ? 50 : 0,
    fail_reason:
      status === TaskStatus.Failure && typeof d.task_status_msg === 'string'
        ? storableText(d.task_status_msg).slice(0, 2000)
        : '',
    data: boundedJson(a, 'null', 1_000_000),
  };
  return { id, patch };
}

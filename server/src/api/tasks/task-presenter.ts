import type { MidjourneyRow } from '../../db/queries/midjourneys.js';
import type { TaskRow } from '../../db/queries/tasks.js';

function json(text: string, fallback: unknown): unknown {
  try {
    return text ? JSON.parse(text) : fallback;
  } catch {
    return fallback;
  }
}

/** Drops every `user_id` inside a task's provider data: a music clip names the account that made it. */
export function withoutUserIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUserIds);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== 'user_id')
        .map(([k, v]) => [k, withoutUserIds(v)]),
    );
  }
  return value;
}

/** An image task as its owner sees it: nothing about the channel that ran it. */
export function presentSelfMidjourney(row: MidjourneyRow) {
  return {
    id: row.id,
    code: row.code,
    user_id: row.user_id,
    token_id: row.token_id,
    action: row.action,
    mj_id: row.mj_id,
    prompt: row.prompt,
    prompt_en: row.prompt_en,
    description: row.description,
    submit_time: row.submit_time,
    start_time: row.start_time,
    finish_time: row.finish_time,
    image_url: row.image_url,
    status: row.status,
    progress: row.progress,
    fail_reason: row.fail_reason,
    quota: row.quota,
    buttons: json(row.buttons, []),
    mode: row.mode,
  };
}

export function presentMidjourney(row: MidjourneyRow) {
  return { ...presentSelfMidjourney(row), channel_id: row.channel_id };
}

export function presentSelfTask(row: TaskRow) {
  return {
    id: row.id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    task_id: row.task_id,
    platform: row.platform,
    user_id: row.user_id,
    token_id: row.token_id,
    quota: row.quota,
    action: row.action,
    status: row.status,
    fail_reason: row.fail_reason,
    submit_time: row.submit_time,
    start_time: row.start_time,
    finish_time: row.finish_time,
    progress: row.progress,
    properties: json(row.properties, {}),
    data: withoutUserIds(json(row.data, null)),
  };
}

export function presentTask(row: TaskRow) {
  return { ...presentSelfTask(row), channel_id: row.channel_id, data: json(row.data, null) };
}

import { TaskStatus } from '@switchyard/domain';
import type { MidjourneyRow } from '../../db/queries/midjourneys.js';
import { storableText } from '../../db/storable-text.js';
import type { MidjourneysTable } from '../../db/tables.js';

// midjourney-proxy's task object (`GET /mj/task/{id}/fetch`, `POST /mj/task/list-by-condition`)
// both ways: what the upstream reports becomes a row update, and a row is answered to the client in
// the same shape. The upstream's times are milliseconds; the rows keep unix seconds.

export interface MjTaskDto {
  id: string;
  action: string;
  customId: string;
  botType: string;
  prompt: string;
  promptEn: string;
  description: string;
  state: string;
  submitTime: number;
  startTime: number;
  finishTime: number;
  imageUrl: string;
  status: string;
  progress: string;
  failReason: string;
  buttons: unknown[];
  maskBase64: string;
  properties: Record<string, unknown>;
}

function json(textValue: string, fallback: unknown): unknown {
  try {
    return textValue ? JSON.parse(textValue) : fallback;
  } catch {
    return fallback;
  }
}

/** The row as midjourney-proxy answers a task; the image goes through the gateway's proxy. */
export function presentMjTask(row: MidjourneyRow, serverAddress: string): MjTaskDto {
  const buttons = json(row.buttons, []);
  const properties = json(row.properties, {});
  return {
    id: row.mj_id,
    action: row.action,
    customId: '',
    botType: '',
    prompt: row.prompt,
    promptEn: row.prompt_en,
    description: row.description,
    state: row.state,
    submitTime: row.submit_time * 1000,
    startTime: row.start_time * 1000,
    finishTime: row.finish_time * 1000,
    imageUrl: row.image_url
      ? `${serverAddress.replace(/\/+$/, '')}/mj/image/${encodeURIComponent(row.mj_id)}`
      : '',
    status: row.status,
    progress: row.progress,
    failReason: row.fail_reason,
    buttons: Array.isArray(buttons) ? buttons : [],
    maskBase64: '',
    properties: properties && typeof properties === 'object' ? (properties as Record<string, unknown>) : {},
  };
}

/** midjourney-proxy's states; MODAL waits for the submit/modal that completes an action. */
const KNOWN_STATUSES: ReadonlySet<string> = new Set([...Object.values(TaskStatus), 'MODAL']);

function str(v: unknown, max = 20_000): string {
  return typeof v === 'string' ? storableText(v).slice(0, max) : '';
}

function seconds(ms: unknown): number {
  return typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? Math.floor(ms / 1000) : 0;
}

/** JSON text of an upstream value, or `empty` when it is too large to keep. */
export function boundedJson(value: unknown, empty: string, max = 200_000): string {
  const out = JSON.stringify(value) ?? empty;
  return out.length > max ? empty : out;
}

/** What an upstream task object changes in its row; undefined for something that is no task. */
export function mjRowUpdate(dto: unknown): { id: string; patch: Partial<MidjourneysTable> } | undefined {
  if (!dto || typeof dto !== 'object') return undefined;
  const d = dto as Record<string, unknown>;
  const id = str(d.id, 200);
  if (!id) return undefined;
  const status = str(d.status, 20).toUpperCase();
  const patch: Partial<MidjourneysTable> = {
    status: KNOWN_STATUSES.has(status) ? status : TaskStatus.Unknown,
    progress: str(d.progress, 30),
    image_url: str(d.imageUrl, 2000),
    fail_reason: str(d.failReason, 2000),
    prompt_en: str(d.promptEn),
    description: str(d.description),
  };
  const start = seconds(d.startTime);
  const finish = seconds(d.finishTime);
  if (start) patch.start_time = start;
  if (finish) patch.finish_time = finish;
  if (Array.isArray(d.buttons)) patch.buttons = boundedJson(d.buttons, '[]');
  if (d.properties && typeof d.properties === 'object') patch.properties = boundedJson(d.properties, '{}');
  if (patch.status === TaskStatus.Success && !patch.progress) patch.progress = '100%';
  return { id, patch };
}

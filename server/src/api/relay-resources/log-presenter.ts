import type { LogRow } from '../../db/queries/logs.js';

function metadata(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text || '{}');
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** A log as its owner sees it: nothing about which channel served the request. */
export function presentSelfLog(row: LogRow) {
  return {
    id: row.id,
    created_at: row.created_at,
    type: row.type,
    content: row.content,
    user_id: row.user_id,
    username: row.username,
    token_name: row.token_name,
    model_name: row.model_name,
    group: row.group,
    quota: row.quota,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    request_time: row.request_time,
    first_response_time: row.first_response_time,
    is_stream: row.is_stream === 1,
    source_ip: row.source_ip,
    metadata: metadata(row.metadata),
  };
}

/** A log as administrators see it: with the channel (id and name). */
export function presentLog(row: LogRow, channelNames: ReadonlyMap<number, string>) {
  const name = channelNames.get(row.channel_id);
  return {
    ...presentSelfLog(row),
    channel_id: row.channel_id,
    channel: row.channel_id > 0 ? { id: row.channel_id, name: name ?? '' } : null,
  };
}

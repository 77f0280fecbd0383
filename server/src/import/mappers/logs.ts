import type { LogsTable } from '../../db/tables.js';
import { flag, int, jsonValue, text } from '../row-values.js';
import type { SourceRow } from '../source-reader.js';
import { type Mapped, objectJson } from './mapped.js';

type NewLog = Omit<LogsTable, 'id'> & { id: number };

/** A log row keeps its id, so a second run (or a resumed one) skips what is already there. */
export function mapLog(r: SourceRow): Mapped<NewLog> {
  const id = int(r, 'id');
  if (id <= 0) return { skip: 'no id' };
  return {
    row: {
      id,
      user_id: int(r, 'user_id'),
      created_at: int(r, 'created_at'),
      type: int(r, 'type'),
      content: text(r, 'content'),
      username: text(r, 'username').slice(0, 191),
      token_id: int(r, 'token_id'),
      token_name: text(r, 'token_name').slice(0, 191),
      model_name: text(r, 'model_name').slice(0, 191),
      quota: int(r, 'quota'),
      prompt_tokens: int(r, 'prompt_tokens'),
      completion_tokens: int(r, 'completion_tokens'),
      channel_id: int(r, 'channel_id'),
      // one-api calls it elapsed_time (milliseconds, as ours).
      request_time: int(r, 'request_time') || int(r, 'elapsed_time') || int(r, 'use_time') * 1000,
      first_response_time: int(r, 'first_response_time'),
      is_stream: flag(r, 'is_stream'),
      source_ip: text(r, 'source_ip') || text(r, 'ip'),
      group: text(r, 'group').slice(0, 191),
      metadata: objectJson(jsonValue(r, 'metadata')),
    },
  };
}

import dayjs from 'dayjs';

// The log screen's filters live in the URL under the API's own names (unix seconds for times); the
// form holds what a person types (local date-times), and these convert between the two.

export const USER_LOG_FILTERS = [
  'token_name',
  'model_name',
  'log_type',
  'start_timestamp',
  'end_timestamp',
] as const;
export const ADMIN_LOG_FILTERS = [...USER_LOG_FILTERS, 'channel_id', 'username', 'source_ip'] as const;
export type LogFilterName = (typeof ADMIN_LOG_FILTERS)[number];

const INPUT_FORMAT = 'YYYY-MM-DDTHH:mm';

/** Unix seconds as the text of a datetime-local input ('' stays ''). */
export function toInputTime(seconds: string): string {
  if (!/^\d+$/.test(seconds)) return '';
  return dayjs.unix(Number(seconds)).format(INPUT_FORMAT);
}

/** A datetime-local input's text as unix seconds ('' when empty or unreadable). */
export function fromInputTime(text: string): string {
  if (text.trim() === '') return '';
  const at = dayjs(text);
  return at.isValid() ? String(at.unix()) : '';
}

/** The stat endpoint's query for the list's filters: same filters, no paging, no type (it sums consumption). */
export function statQuery(
  filters: Partial<Record<LogFilterName, string>>,
  admin: boolean,
): Record<string, string> {
  const names: LogFilterName[] = admin
    ? ['token_name', 'model_name', 'start_timestamp', 'end_timestamp', 'channel_id', 'username']
    : ['token_name', 'model_name', 'start_timestamp', 'end_timestamp'];
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = filters[name];
    if (value) out[name] = value;
  }
  return out;
}

/** Token kinds of the log detail (the flat metadata keys the relay writes), in display order. */
export const TOKEN_KINDS = [
  'input_text_tokens',
  'output_text_tokens',
  'input_audio_tokens',
  'output_audio_tokens',
  'input_image_tokens',
  'output_image_tokens',
  'cached_tokens',
  'cached_write_tokens',
  'cached_read_tokens',
  'reasoning_tokens',
] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

export interface LogBreakdown {
  tokens: { kind: TokenKind; count: number; ratio: number | undefined }[];
  groupRatio: number | undefined;
  inputRatio: number | undefined;
  outputRatio: number | undefined;
  priceType: string | undefined;
  firstResponseMs: number | undefined;
  estimated: boolean;
  shortfall: number | undefined;
  /** The client left mid-stream; `deliveredOnly`: and only what it received was billed. */
  clientAborted: boolean;
  deliveredOnly: boolean;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export function logBreakdown(metadata: Record<string, unknown>): LogBreakdown {
  const tokens: LogBreakdown['tokens'] = [];
  for (const kind of TOKEN_KINDS) {
    const count = num(metadata[kind]);
    if (count !== undefined) tokens.push({ kind, count, ratio: num(metadata[`${kind}_ratio`]) });
  }
  return {
    tokens,
    groupRatio: num(metadata.group_ratio),
    inputRatio: num(metadata.input_ratio),
    outputRatio: num(metadata.output_ratio),
    priceType: typeof metadata.price_type === 'string' ? metadata.price_type : undefined,
    firstResponseMs: num(metadata.first_response),
    estimated: metadata.estimated === true,
    shortfall: num(metadata.shortfall),
    clientAborted: metadata.client_aborted === true,
    deliveredOnly: metadata.billed_delivered_only === true,
  };
}

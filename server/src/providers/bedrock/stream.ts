import type { UpstreamErrorFields } from '../openai/errors.js';
import { asString, isRecord, parseJson } from '../translate/json-reading.js';
import { bedrockErrorFields, bedrockExceptionName, bedrockExceptionStatus } from './errors.js';
import { EventStreamDecoder, type EventStreamMessage } from './event-stream.js';

// InvokeModelWithResponseStream wraps each event of the model's own stream in an event-stream
// `chunk` message whose payload is `{"bytes":"<base64 JSON>"}`. For Claude that JSON is exactly an
// Anthropic Messages stream event, so this turns the frames back into Anthropic SSE: the bytes
// `anthropic/stream-meter.ts` meters and the Anthropic -> OpenAI translator reads, as if the
// channel were Anthropic itself.

const ANTHROPIC_ERROR_TYPE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout_error',
  429: 'rate_limit_error',
  503: 'overloaded_error',
};

/** An exception that arrived inside the stream, with the HTTP status it stands for. */
export interface BedrockStreamError extends UpstreamErrorFields {
  status: number;
}

function sse(name: string, json: string): Buffer {
  return Buffer.from(`event: ${name}\ndata: ${json}\n\n`, 'utf8');
}

export class BedrockStreamDecoder {
  private readonly decoder = new EventStreamDecoder();
  /** The first exception frame; the stream ends after it. */
  error: BedrockStreamError | null = null;
  /** `message_stop` arrived. */
  done = false;
  messages = 0;

  /** Event-stream bytes in; the Anthropic SSE bytes they complete out. */
  write(chunk: Buffer): Buffer {
    const out: Buffer[] = [];
    for (const message of this.decoder.push(chunk)) {
      this.messages++;
      const bytes = this.translate(message);
      if (bytes) out.push(bytes);
    }
    return out.length === 1 ? (out[0] as Buffer) : Buffer.concat(out);
  }

  /** Bytes of a message cut off when the upstream ended (0 after a clean end). */
  get leftover(): number {
    return this.decoder.leftover;
  }

  private translate(message: EventStreamMessage): Buffer | null {
    const kind = message.headers[':message-type'];
    if (kind === 'exception' || kind === 'error') {
      const name =
        kind === 'exception'
          ? bedrockExceptionName(String(message.headers[':exception-type'] ?? ''))
          : bedrockExceptionName(String(message.headers[':error-code'] ?? ''));
      const payload = parseJson(message.payload.toString('utf8'));
      const body = kind === 'error' ? { message: message.headers[':error-message'] } : payload;
      const fields = bedrockErrorFields(name, body) ?? {
        message: 'Bedrock stream error',
        type: 'upstream_error',
        code: null,
        param: null,
      };
      const status = bedrockExceptionStatus(name ?? '');
      this.error ??= { ...fields, status };
      const type = ANTHROPIC_ERROR_TYPE_BY_STATUS[status] ?? 'api_error';
      return sse('error', JSON.stringify({ type: 'error', error: { type, message: fields.message } }));
    }
    if (message.headers[':event-type'] !== 'chunk') return null;
    const payload = parseJson(message.payload.toString('utf8'));
    const b64 = isRecord(payload) ? asString(payload.bytes) : undefined;
    if (!b64) return null;
    const json = Buffer.from(b64, 'base64').toString('utf8');
    const event = parseJson(json);
    if (!isRecord(event)) return null;
    const name = asString(event.type) ?? 'unknown';
    if (name === 'message_stop') {
      this.done = true;
      // Bedrock adds its own metrics to the last event; an Anthropic client expects the plain event.
      if ('amazon-bedrock-invocationMetrics' in event) {
        const { 'amazon-bedrock-invocationMetrics': _metrics, ...rest } = event;
        return sse(name, JSON.stringify(rest));
      }
    }
    return sse(name, json);
  }
}

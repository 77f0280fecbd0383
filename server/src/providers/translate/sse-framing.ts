// Server-sent events in and out. The reader takes bytes in any chunking (a line, an event or a
// multi-byte character may be cut anywhere) and hands out complete events; line ends may be LF,
// CRLF or a lone CR, as the SSE spec allows. Data stays a Buffer so a meter that only needs the
// event name never decodes the payload.

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const NEWLINE = Buffer.from('\n');

export interface SseEvent {
  /** The `event:` field, '' when the event had none. */
  event: string;
  /** The `data:` lines joined by LF. */
  data: Buffer;
}

export class SseReader {
  private carry: Buffer | null = null;
  /** The previous chunk ended in CR: a leading LF in the next one belongs to that terminator. */
  private skipLf = false;
  private dataLines: Buffer[] = [];
  private eventName = '';
  private hasFields = false;

  /** The events completed by this chunk, in order. */
  push(chunk: Buffer): SseEvent[] {
    const events: SseEvent[] = [];
    let pos = 0;
    if (this.skipLf) {
      this.skipLf = false;
      if (chunk[0] === LF) pos = 1;
    }
    while (pos < chunk.length) {
      const lf = chunk.indexOf(LF, pos);
      const cr = chunk.indexOf(CR, pos);
      const term = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (term === -1) {
        const rest = chunk.subarray(pos);
        this.carry = this.carry ? Buffer.concat([this.carry, rest]) : Buffer.from(rest);
        break;
      }
      let next = term + 1;
      if (chunk[term] === CR) {
        if (term + 1 < chunk.length) {
          if (chunk[term + 1] === LF) next = term + 2;
        } else {
          this.skipLf = true;
        }
      }
      const piece = chunk.subarray(pos, term);
      const line = this.carry ? Buffer.concat([this.carry, piece]) : piece;
      this.carry = null;
      const event = this.line(line);
      if (event) events.push(event);
      pos = next;
    }
    return events;
  }

  /** The input ended: an unterminated last event still counts. */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.carry) {
      const line = this.carry;
      this.carry = null;
      const event = this.line(line);
      if (event) events.push(event);
    }
    const last = this.dispatch();
    if (last) events.push(last);
    return events;
  }

  private line(line: Buffer): SseEvent | null {
    if (line.length === 0) return this.dispatch();
    if (line[0] === COLON) return null;
    const colon = line.indexOf(COLON);
    const name = (colon === -1 ? line : line.subarray(0, colon)).toString('latin1');
    let value = colon === -1 ? Buffer.alloc(0) : line.subarray(colon + 1);
    if (value[0] === SPACE) value = value.subarray(1);
    if (name === 'data') {
      // Copied: the chunk it points into belongs to the caller.
      this.dataLines.push(Buffer.from(value));
      this.hasFields = true;
    } else if (name === 'event') {
      this.eventName = value.toString('utf8');
      this.hasFields = true;
    }
    return null;
  }

  private dispatch(): SseEvent | null {
    if (!this.hasFields) return null;
    const lines = this.dataLines;
    const event = { event: this.eventName, data: joinLines(lines) };
    this.dataLines = [];
    this.eventName = '';
    this.hasFields = false;
    return event;
  }
}

function joinLines(lines: Buffer[]): Buffer {
  if (lines.length === 1 && lines[0]) return lines[0];
  const parts: Buffer[] = [];
  lines.forEach((l, i) => {
    if (i > 0) parts.push(NEWLINE);
    parts.push(l);
  });
  return Buffer.concat(parts);
}

/** An Anthropic-style event: the name line, then the JSON payload whose `type` repeats it. */
export function namedEvent(name: string, payload: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** An OpenAI-style event: one data line. */
export function dataEvent(payload: unknown): string {
  return `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`;
}

/** A Gemini-style event: Google ends its SSE events with CRLF CRLF. */
export function crlfDataEvent(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\r\n\r\n`;
}

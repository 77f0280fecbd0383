import type { IncomingHttpHeaders } from 'node:http';
import { HTTP_TOKEN } from '../../http/header-syntax.js';

// Reads one HTTP/1.1 reply from the bytes of a connection (RFC 9112): the status line and header
// fields, then the body framed by Transfer-Encoding: chunked, Content-Length or the end of the
// connection. Interim (1xx) replies are skipped. It only frames; what the body means is the
// relay's business.

/** Where a parsed reply goes; its end is `done` once `feed` or `closed` returns. */
export interface ReplyEvents {
  head(statusCode: number, headers: IncomingHttpHeaders): void;
  data(chunk: Buffer): void;
}

/** The upstream broke HTTP/1.1: the connection cannot be trusted any further. */
export class ReplyParseError extends Error {
  readonly code = 'UND_ERR_RESPONSE';
  constructor(message: string) {
    super(`invalid upstream reply: ${message}`);
    this.name = 'ReplyParseError';
  }
}

/** A larger head is refused (undici's default limit is 16 KiB; Node's server allows 16 KiB too). */
export const MAX_HEAD_BYTES = 64 * 1024;
/** A chunk-size line, extensions included. */
const MAX_SIZE_LINE = 4096;
const MAX_TRAILER_BYTES = 16 * 1024;

enum Stage {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkEnd,
  Trailer,
  UntilClose,
  Done,
}

const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: |$)/;
const HEX = /^[0-9A-Fa-f]{1,12}$/;

export class Http1ReplyParser {
  private stage = Stage.Head;
  /** Bytes of an unfinished head, size line or trailer, kept until their line ends. */
  private pending: Buffer | undefined;
  private remaining = 0;
  private http10 = false;
  private closeAfter = false;
  private trailerBytes = 0;

  constructor(
    private readonly events: ReplyEvents,
    /** A reply to HEAD has no body, whatever its headers say. */
    private readonly headRequest = false,
  ) {}

  /** Whether the whole reply has been read. */
  get done(): boolean {
    return this.stage === Stage.Done;
  }

  /** Whether the connection may carry another request once the reply is done. */
  get reusable(): boolean {
    return this.stage === Stage.Done && !this.closeAfter;
  }

  /** Whether any of the reply's head has been read. */
  private get started(): boolean {
    return this.stage !== Stage.Head || this.pending !== undefined;
  }

  /**
   * Reads the next bytes of the connection. Returns how many bytes followed the end of the reply
   * (an upstream that sends more than it was asked for cannot be reused); throws ReplyParseError.
   */
  feed(bytes: Buffer): number {
    let buf = bytes;
    let at = 0;
    if (this.pending) {
      buf = Buffer.concat([this.pending, bytes]);
      this.pending = undefined;
    }
    while (at < buf.length) {
      switch (this.stage) {
        case Stage.Head:
          at = this.readHead(buf, at);
          break;
        case Stage.Length:
          at = this.readCounted(buf, at);
          if (this.remaining === 0) this.finish();
          break;
        case Stage.ChunkSize:
          at = this.readChunkSize(buf, at);
          break;
        case Stage.ChunkData:
          at = this.readCounted(buf, at);
          if (this.remaining === 0) this.stage = Stage.ChunkEnd;
          break;
        case Stage.ChunkEnd:
          at = this.readChunkEnd(buf, at);
          break;
        case Stage.Trailer:
          at = this.readTrailer(buf, at);
          break;
        case Stage.UntilClose:
          this.events.data(at === 0 ? buf : buf.subarray(at));
          at = buf.length;
          break;
        case Stage.Done:
          return buf.length - at;
      }
    }
    return 0;
  }

  /** The connection ended: that ends a reply framed by it, and cuts any other short. */
  closed(): void {
    if (this.stage === Stage.Done) return;
    if (this.stage === Stage.UntilClose) {
      this.finish();
      return;
    }
    throw new ReplyParseError(this.started ? 'the connection closed before the reply ended' : 'no reply');
  }

  /** Hands on up to `remaining` body bytes from `from` (the whole buffer itself when it is all body). */
  private readCounted(buf: Buffer, from: number): number {
    const n = Math.min(this.remaining, buf.length - from);
    this.remaining -= n;
    this.events.data(from === 0 && n === buf.length ? buf : buf.subarray(from, from + n));
    return from + n;
  }

  private readHead(buf: Buffer, from: number): number {
    const end = buf.indexOf('\r\n\r\n', from, 'latin1');
    if (end < 0) {
      if (buf.length - from > MAX_HEAD_BYTES) throw new ReplyParseError('the head is too large');
      this.pending = buf.subarray(from);
      return buf.length;
    }
    if (end - from > MAX_HEAD_BYTES) throw new ReplyParseError('the head is too large');
    const lines = buf.toString('latin1', from, end).split('\r\n');
    const status = STATUS_LINE.exec(lines[0] ?? '');
    if (!status) throw new ReplyParseError('no HTTP/1.x status line');
    const statusCode = Number(status[2]);
    const headers = parseFields(lines);
    const next = end + 4;
    // An interim reply (100 Continue, 103 Early Hints) precedes the real one.
    if (statusCode < 200) {
      if (statusCode === 101) throw new ReplyParseError('the upstream switched protocols');
      return next;
    }
    this.http10 = status[1] === '0';
    this.closeAfter = wantsClose(headers.connection, this.http10);
    this.events.head(statusCode, headers);
    this.frameBody(statusCode, headers);
    return next;
  }

  private frameBody(statusCode: number, headers: IncomingHttpHeaders): void {
    if (this.headRequest || statusCode === 204 || statusCode === 304) {
      this.finish();
      return;
    }
    const te = headers['transfer-encoding'];
    if (te !== undefined) {
      const codings = te.toLowerCase().split(',');
      // Only a final chunked coding frames the body; anything else runs to the end of the connection.
      if (codings[codings.length - 1]?.trim() === 'chunked' && !this.http10) {
        this.stage = Stage.ChunkSize;
      } else {
        this.closeAfter = true;
        this.stage = Stage.UntilClose;
      }
      return;
    }
    const cl = headers['content-length'];
    if (cl !== undefined) {
      this.remaining = contentLength(cl);
      if (this.remaining === 0) this.finish();
      else this.stage = Stage.Length;
      return;
    }
    this.closeAfter = true;
    this.stage = Stage.UntilClose;
  }

  private readChunkSize(buf: Buffer, from: number): number {
    const eol = buf.indexOf(10, from);
    if (eol < 0) {
      if (buf.length - from > MAX_SIZE_LINE) throw new ReplyParseError('a chunk-size line is too long');
      this.pending = buf.subarray(from);
      return buf.length;
    }
    if (eol - from > MAX_SIZE_LINE) throw new ReplyParseError('a chunk-size line is too long');
    if (buf[eol - 1] !== 13 || eol === from)
      throw new ReplyParseError('a chunk-size line does not end in CRLF');
    const line = buf.toString('latin1', from, eol - 1);
    const semi = line.indexOf(';');
    const hex = (semi < 0 ? line : line.slice(0, semi)).trimEnd();
    if (!HEX.test(hex)) throw new ReplyParseError('a chunk size is not hexadecimal');
    const size = Number.parseInt(hex, 16);
    if (size === 0) {
      this.stage = Stage.Trailer;
      this.trailerBytes = 0;
    } else {
      this.remaining = size;
      this.stage = Stage.ChunkData;
    }
    return eol + 1;
  }

  private readChunkEnd(buf: Buffer, from: number): number {
    if (buf.length - from < 2) {
      if (buf[from] !== 13) throw new ReplyParseError('a chunk does not end in CRLF');
      this.pending = buf.subarray(from);
      return buf.length;
    }
    if (buf[from] !== 13 || buf[from + 1] !== 10) throw new ReplyParseError('a chunk does not end in CRLF');
    this.stage = Stage.ChunkSize;
    return from + 2;
  }

  /** Trailer fields are read and dropped: the relay has no use for them. */
  private readTrailer(buf: Buffer, from: number): number {
    let at = from;
    for (;;) {
      const eol = buf.indexOf(10, at);
      if (eol < 0) {
        this.trailerBytes += buf.length - at;
        if (this.trailerBytes > MAX_TRAILER_BYTES) throw new ReplyParseError('the trailer is too large');
        this.pending = buf.subarray(at);
        return buf.length;
      }
      if (buf[eol - 1] !== 13 || eol === at) throw new ReplyParseError('a trailer line does not end in CRLF');
      this.trailerBytes += eol + 1 - at;
      if (this.trailerBytes > MAX_TRAILER_BYTES) throw new ReplyParseError('the trailer is too large');
      const empty = eol === at + 1;
      at = eol + 1;
      if (empty) {
        this.finish();
        return at;
      }
    }
  }

  private finish(): void {
    this.stage = Stage.Done;
  }
}

/** The header fields after the status line, names lower-cased; repeated ones joined as Node does. */
function parseFields(lines: string[]): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new ReplyParseError('a header line has no name');
    const raw = line.slice(0, colon);
    if (!HTTP_TOKEN.test(raw)) throw new ReplyParseError('a header name is not a token');
    const name = raw.toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'set-cookie') {
      const prior = headers['set-cookie'];
      if (prior) prior.push(value);
      else headers['set-cookie'] = [value];
      continue;
    }
    const prior = headers[name];
    if (prior === undefined) headers[name] = value;
    else if (name === 'content-length') {
      if (prior !== value) throw new ReplyParseError('conflicting Content-Length fields');
    } else headers[name] = `${prior}, ${value}`;
  }
  return headers;
}

function contentLength(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new ReplyParseError('Content-Length is not a number');
  return Number(value);
}

function wantsClose(connection: string | undefined, http10: boolean): boolean {
  const options = connection?.toLowerCase() ?? '';
  if (options.includes('close')) return true;
  return http10 && !options.includes('keep-alive');
}

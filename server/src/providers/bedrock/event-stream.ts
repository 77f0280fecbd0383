import { crc32 } from 'node:zlib';

// The `application/vnd.amazon.eventstream` binary framing of AWS streaming replies. Each message:
//   prelude:  total length (u32 BE) | headers length (u32 BE) | CRC32 of those 8 bytes
//   headers:  name length (u8) | name | value type (u8) | value
//   payload:  the rest
//   trailer:  CRC32 of everything before it
// Streams are cut anywhere by TCP, so the decoder buffers until a whole message is there.

export type EventStreamHeaderValue = string | number | bigint | boolean | Buffer | Date;

export interface EventStreamMessage {
  headers: Record<string, EventStreamHeaderValue>;
  payload: Buffer;
}

export class EventStreamError extends Error {}

const PRELUDE_LENGTH = 12;
const TRAILER_LENGTH = 4;
/** AWS caps a message at 16 MiB; a bigger length means a corrupt or hostile stream. */
const MAX_MESSAGE_LENGTH = 16 * 1024 * 1024;

function readHeaders(buf: Buffer): Record<string, EventStreamHeaderValue> {
  const out: Record<string, EventStreamHeaderValue> = {};
  let i = 0;
  const need = (n: number) => {
    if (i + n > buf.length) throw new EventStreamError('event-stream header runs past its section');
  };
  while (i < buf.length) {
    need(1);
    const nameLength = buf.readUInt8(i);
    i += 1;
    need(nameLength + 1);
    const name = buf.toString('utf8', i, i + nameLength);
    i += nameLength;
    const type = buf.readUInt8(i);
    i += 1;
    switch (type) {
      case 0:
        out[name] = true;
        break;
      case 1:
        out[name] = false;
        break;
      case 2:
        need(1);
        out[name] = buf.readInt8(i);
        i += 1;
        break;
      case 3:
        need(2);
        out[name] = buf.readInt16BE(i);
        i += 2;
        break;
      case 4:
        need(4);
        out[name] = buf.readInt32BE(i);
        i += 4;
        break;
      case 5:
        need(8);
        out[name] = buf.readBigInt64BE(i);
        i += 8;
        break;
      case 6:
      case 7: {
        need(2);
        const length = buf.readUInt16BE(i);
        i += 2;
        need(length);
        const bytes = buf.subarray(i, i + length);
        out[name] = type === 7 ? bytes.toString('utf8') : Buffer.from(bytes);
        i += length;
        break;
      }
      case 8:
        need(8);
        out[name] = new Date(Number(buf.readBigInt64BE(i)));
        i += 8;
        break;
      case 9:
        need(16);
        out[name] = buf.subarray(i, i + 16).toString('hex');
        i += 16;
        break;
      default:
        throw new EventStreamError(`unknown event-stream header type ${type}`);
    }
  }
  return out;
}

/** Decodes one complete message (prelude through trailer), checking both CRCs. */
export function decodeEventStreamMessage(message: Buffer): EventStreamMessage {
  if (message.length < PRELUDE_LENGTH + TRAILER_LENGTH)
    throw new EventStreamError('event-stream message too short');
  const total = message.readUInt32BE(0);
  const headersLength = message.readUInt32BE(4);
  if (total !== message.length) throw new EventStreamError('event-stream message length mismatch');
  if (crc32(message.subarray(0, 8)) !== message.readUInt32BE(8)) {
    throw new EventStreamError('event-stream prelude CRC mismatch');
  }
  if (crc32(message.subarray(0, total - TRAILER_LENGTH)) !== message.readUInt32BE(total - TRAILER_LENGTH)) {
    throw new EventStreamError('event-stream message CRC mismatch');
  }
  const headersEnd = PRELUDE_LENGTH + headersLength;
  if (headersEnd > total - TRAILER_LENGTH)
    throw new EventStreamError('event-stream headers exceed the message');
  return {
    headers: readHeaders(message.subarray(PRELUDE_LENGTH, headersEnd)),
    payload: Buffer.from(message.subarray(headersEnd, total - TRAILER_LENGTH)),
  };
}

/** Incremental decoder: feed chunks as they arrive, get the messages they complete. */
export class EventStreamDecoder {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): EventStreamMessage[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const out: EventStreamMessage[] = [];
    while (this.pending.length >= PRELUDE_LENGTH) {
      const total = this.pending.readUInt32BE(0);
      // The prelude CRC is checked before trusting the length, so garbage is not buffered for 16 MiB.
      if (crc32(this.pending.subarray(0, 8)) !== this.pending.readUInt32BE(8)) {
        throw new EventStreamError('event-stream prelude CRC mismatch');
      }
      if (total < PRELUDE_LENGTH + TRAILER_LENGTH || total > MAX_MESSAGE_LENGTH) {
        throw new EventStreamError(`event-stream message length ${total} out of range`);
      }
      if (this.pending.length < total) break;
      out.push(decodeEventStreamMessage(this.pending.subarray(0, total)));
      this.pending = this.pending.subarray(total);
    }
    return out;
  }

  /** Bytes of an unfinished message left when the stream ended (a cut stream). */
  get leftover(): number {
    return this.pending.length;
  }
}

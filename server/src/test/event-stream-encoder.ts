import { crc32 } from 'node:zlib';

// Writes `application/vnd.amazon.eventstream` messages the way AWS services do, for the fake
// Bedrock upstream and the decoder's tests. String headers only: that is all Bedrock sends.

export function encodeEventStreamMessage(headers: Record<string, string>, payload: Buffer | string): Buffer {
  const headerParts: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const n = Buffer.from(name, 'utf8');
    const v = Buffer.from(value, 'utf8');
    const head = Buffer.alloc(1 + n.length + 1 + 2);
    head.writeUInt8(n.length, 0);
    n.copy(head, 1);
    head.writeUInt8(7, 1 + n.length);
    head.writeUInt16BE(v.length, 2 + n.length);
    headerParts.push(head, v);
  }
  const headerBytes = Buffer.concat(headerParts);
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const total = 12 + headerBytes.length + body.length + 4;
  const out = Buffer.alloc(total);
  out.writeUInt32BE(total, 0);
  out.writeUInt32BE(headerBytes.length, 4);
  out.writeUInt32BE(crc32(out.subarray(0, 8)), 8);
  headerBytes.copy(out, 12);
  body.copy(out, 12 + headerBytes.length);
  out.writeUInt32BE(crc32(out.subarray(0, total - 4)), total - 4);
  return out;
}

/** A Bedrock `chunk` event carrying one model event as base64 JSON. */
export function bedrockChunk(event: unknown): Buffer {
  const bytes = Buffer.from(JSON.stringify(event)).toString('base64');
  return encodeEventStreamMessage(
    { ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' },
    JSON.stringify({ bytes, p: 'abcdefghijkl' }),
  );
}

/** A Bedrock exception frame, as sent when the model fails mid-stream. */
export function bedrockException(exceptionType: string, message: string): Buffer {
  return encodeEventStreamMessage(
    { ':exception-type': exceptionType, ':content-type': 'application/json', ':message-type': 'exception' },
    JSON.stringify({ message }),
  );
}

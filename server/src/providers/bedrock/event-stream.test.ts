import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bedrockChunk, encodeEventStreamMessage } from '../../test/event-stream-encoder.js';
import { decodeEventStreamMessage, EventStreamDecoder, EventStreamError } from './event-stream.js';

describe('event-stream framing', () => {
  it('decodes a message: prelude, string headers, payload', () => {
    const msg = encodeEventStreamMessage({ ':message-type': 'event', ':event-type': 'chunk' }, '{"a":1}');
    expect(msg.readUInt32BE(0)).toBe(msg.length);
    const decoded = decodeEventStreamMessage(msg);
    expect(decoded.headers).toEqual({ ':message-type': 'event', ':event-type': 'chunk' });
    expect(decoded.payload.toString()).toBe('{"a":1}');
  });

  it('decodes every header value type', () => {
    const headers = Buffer.concat([
      Buffer.from([1, 0x74, 0]), // "t": true
      Buffer.from([1, 0x66, 1]), // "f": false
      Buffer.from([1, 0x62, 2, 0xff]), // "b": byte -1
      Buffer.from([1, 0x73, 3, 0x01, 0x00]), // "s": short 256
      Buffer.from([1, 0x69, 4, 0, 0, 0x01, 0x00]), // "i": int 256
      Buffer.from([1, 0x6c, 5, 0, 0, 0, 0, 0, 0, 0, 7]), // "l": long 7
      Buffer.from([1, 0x79, 6, 0, 2, 0xca, 0xfe]), // "y": bytes
      Buffer.from([1, 0x64, 8, 0, 0, 0, 0, 0, 0, 0x03, 0xe8]), // "d": timestamp 1000 ms
      Buffer.from([1, 0x75, 9, ...Array.from({ length: 16 }, (_, i) => i)]), // "u": uuid
    ]);
    const total = 12 + headers.length + 4;
    const msg = Buffer.alloc(total);
    msg.writeUInt32BE(total, 0);
    msg.writeUInt32BE(headers.length, 4);
    msg.writeUInt32BE(crc32(msg.subarray(0, 8)), 8);
    headers.copy(msg, 12);
    msg.writeUInt32BE(crc32(msg.subarray(0, total - 4)), total - 4);
    const h = decodeEventStreamMessage(msg).headers;
    expect(h).toMatchObject({
      t: true,
      f: false,
      b: -1,
      s: 256,
      i: 256,
      l: 7n,
      u: '000102030405060708090a0b0c0d0e0f',
    });
    expect(h.y).toEqual(Buffer.from([0xca, 0xfe]));
    expect(h.d).toEqual(new Date(1000));
  });

  it('reassembles messages cut at every byte boundary', () => {
    const stream = Buffer.concat([bedrockChunk({ type: 'ping' }), bedrockChunk({ type: 'message_stop' })]);
    for (let cut = 1; cut < stream.length; cut++) {
      const d = new EventStreamDecoder();
      const got = [...d.push(stream.subarray(0, cut)), ...d.push(stream.subarray(cut))];
      expect(got).toHaveLength(2);
      expect(d.leftover).toBe(0);
    }
    const d = new EventStreamDecoder();
    let n = 0;
    for (const byte of stream) n += d.push(Buffer.from([byte])).length;
    expect(n).toBe(2);
  });

  it('refuses a corrupt prelude or message CRC', () => {
    const msg = encodeEventStreamMessage({ ':message-type': 'event' }, 'payload');
    const badPrelude = Buffer.from(msg);
    badPrelude.writeUInt8((badPrelude[11] ?? 0) ^ 1, 11);
    expect(() => new EventStreamDecoder().push(badPrelude)).toThrow(/prelude CRC/);
    const badBody = Buffer.from(msg);
    badBody.writeUInt8((badBody[badBody.length - 6] ?? 0) ^ 0xff, badBody.length - 6);
    expect(() => new EventStreamDecoder().push(badBody)).toThrow(EventStreamError);
    expect(() => new EventStreamDecoder().push(badBody)).toThrow(/message CRC/);
  });

  it('counts the bytes of a message cut off at the end', () => {
    const msg = bedrockChunk({ type: 'ping' });
    const d = new EventStreamDecoder();
    expect(d.push(msg.subarray(0, 20))).toEqual([]);
    expect(d.leftover).toBe(20);
  });
});

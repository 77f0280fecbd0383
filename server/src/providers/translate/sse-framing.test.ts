import { describe, expect, it } from 'vitest';
import { crlfDataEvent, dataEvent, namedEvent, type SseEvent, SseReader } from './sse-framing.js';

function readAll(bytes: Buffer, cuts: number[]): { event: string; data: string }[] {
  const reader = new SseReader();
  const events: SseEvent[] = [];
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    events.push(...reader.push(bytes.subarray(at, cut)));
    at = cut;
  }
  events.push(...reader.end());
  return events.map((e) => ({ event: e.event, data: e.data.toString('utf8') }));
}

const STREAM = [
  ': a comment line\n',
  'event: message_start\ndata: {"type":"message_start","text":"héllo 你好 👋"}\n\n',
  'data: first line\ndata: second line\n\n',
  'event: ping\ndata: {"type": "ping"}\n\n',
  'data:no-space\n\n',
  'id: 7\nretry: 1000\n\n',
  'data: [DONE]\n\n',
].join('');

const EXPECTED = [
  { event: 'message_start', data: '{"type":"message_start","text":"héllo 你好 👋"}' },
  { event: '', data: 'first line\nsecond line' },
  { event: 'ping', data: '{"type": "ping"}' },
  { event: '', data: 'no-space' },
  { event: '', data: '[DONE]' },
];

describe('SseReader', () => {
  it('reads events, multi-line data and comments', () => {
    expect(readAll(Buffer.from(STREAM), [])).toEqual(EXPECTED);
  });

  it('gives the same events at every split point, byte by byte, and for CRLF and CR line ends', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const bytes = Buffer.from(STREAM.replaceAll('\n', eol));
      expect(
        readAll(
          bytes,
          Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
        ),
        eol,
      ).toEqual(EXPECTED);
      for (let cut = 1; cut < bytes.length; cut++) expect(readAll(bytes, [cut])).toEqual(EXPECTED);
    }
  });

  it('dispatches an unterminated last event at the end', () => {
    expect(readAll(Buffer.from('data: {"a":1}\n\ndata: tail'), [])).toEqual([
      { event: '', data: '{"a":1}' },
      { event: '', data: 'tail' },
    ]);
  });
});

describe('event writers', () => {
  it('write the three framings', () => {
    expect(namedEvent('ping', { type: 'ping' })).toBe('event: ping\ndata: {"type":"ping"}\n\n');
    expect(dataEvent({ a: 1 })).toBe('data: {"a":1}\n\n');
    expect(dataEvent('[DONE]')).toBe('data: [DONE]\n\n');
    expect(crlfDataEvent({ a: 1 })).toBe('data: {"a":1}\r\n\r\n');
  });
});

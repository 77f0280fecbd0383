import { describe, expect, it } from 'vitest';
import { SseParser } from './chat-stream';

describe('SseParser', () => {
  it('yields each data event once complete, across chunk boundaries', () => {
    const p = new SseParser();
    expect(p.push('data: {"a":1}\n\ndata: {"b"')).toEqual([{ a: 1 }]);
    expect(p.push(':2}\n')).toEqual([]);
    expect(p.push('\n')).toEqual([{ b: 2 }]);
  });

  it('handles CRLF, comments, multi-line data and the [DONE] marker', () => {
    const p = new SseParser();
    const out = p.push(': keep-alive\r\n\r\ndata: {"x":\r\ndata: 3}\r\n\r\ndata: [DONE]\n\n');
    expect(out).toEqual([{ x: 3 }]);
    expect(p.done).toBe(true);
  });

  it('skips a malformed event and keeps going', () => {
    const p = new SseParser();
    expect(p.push('data: {oops\n\ndata: {"ok":true}\n\n')).toEqual([{ ok: true }]);
  });
});

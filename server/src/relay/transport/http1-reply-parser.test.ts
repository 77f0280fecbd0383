import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { Http1ReplyParser, ReplyParseError } from './http1-reply-parser.js';

interface Read {
  status?: number;
  headers?: IncomingHttpHeaders;
  body: string;
  ended: boolean;
  extra: number;
  reusable: boolean;
}

/** Feeds `wire` to a parser in pieces cut at `cuts`, and reports what it read. */
function parse(wire: string, cuts: number[] = [], opts: { head?: boolean; close?: boolean } = {}): Read {
  const read: Read = { body: '', ended: false, extra: 0, reusable: false };
  const parser = new Http1ReplyParser(
    {
      head(status, headers) {
        read.status = status;
        read.headers = headers;
      },
      data(chunk) {
        expect(parser.done).toBe(false);
        read.body += chunk.toString('latin1');
      },
    },
    opts.head,
  );
  const bytes = Buffer.from(wire, 'latin1');
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut <= from) continue;
    read.extra += parser.feed(bytes.subarray(from, cut));
    from = cut;
  }
  if (opts.close) parser.closed();
  read.ended = parser.done;
  read.reusable = parser.reusable;
  return read;
}

/** Every way of cutting `wire` in two and in three pieces reads the same as one piece. */
function expectSameAtEveryCut(wire: string, opts: { close?: boolean } = {}): Read {
  const whole = parse(wire, [], opts);
  for (let i = 1; i < wire.length; i++) {
    expect(parse(wire, [i], opts), `cut at ${i}`).toEqual(whole);
    const j = Math.min(wire.length - 1, i + 7);
    expect(parse(wire, [i, j], opts), `cuts at ${i}, ${j}`).toEqual(whole);
  }
  return whole;
}

describe('Http1ReplyParser', () => {
  it('reads a reply framed by Content-Length, however its bytes arrive', () => {
    const read = expectSameAtEveryCut(
      'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nX-Id:  a b \r\n\r\n{"ok":true}',
    );
    expect(read).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json', 'content-length': '11', 'x-id': 'a b' },
      body: '{"ok":true}',
      ended: true,
      extra: 0,
      reusable: true,
    });
  });

  it('reads a chunked reply with chunk extensions and a trailer, however its bytes arrive', () => {
    const wire =
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n' +
      '5\r\ndata:\r\n' +
      'B;name=value\r\n 0123456789\r\n' +
      '0\r\nX-Checksum: 1\r\n\r\n';
    const read = expectSameAtEveryCut(wire);
    expect(read.body).toBe('data: 0123456789');
    expect(read.ended).toBe(true);
    expect(read.reusable).toBe(true);
  });

  it('skips interim replies and reads the final one', () => {
    const read = parse(
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok',
    );
    expect(read.status).toBe(201);
    expect(read.headers).toEqual({ 'content-length': '2' });
    expect(read.body).toBe('ok');
  });

  it('reads no body for 204, 304 and a reply to HEAD', () => {
    expect(parse('HTTP/1.1 204 No Content\r\n\r\n')).toMatchObject({
      status: 204,
      body: '',
      ended: true,
      reusable: true,
    });
    expect(parse('HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n')).toMatchObject({
      body: '',
      ended: true,
    });
    expect(parse('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n', [], { head: true })).toMatchObject({
      body: '',
      ended: true,
      reusable: true,
    });
  });

  it('reads a body without framing until the connection closes, and does not reuse it', () => {
    const wire = 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: 1\n\ndata: 2\n\n';
    const open = parse(wire);
    expect(open).toMatchObject({ body: 'data: 1\n\ndata: 2\n\n', ended: false });
    expect(expectSameAtEveryCut(wire, { close: true })).toMatchObject({ ended: true, reusable: false });
  });

  it('keeps the connection only when the reply lets it', () => {
    expect(parse('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n').reusable).toBe(false);
    expect(parse('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n').reusable).toBe(false);
    expect(parse('HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n').reusable).toBe(
      true,
    );
    // Transfer codings other than a final chunked run to the end of the connection.
    const gzip = parse('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nxyz', [], { close: true });
    expect(gzip).toMatchObject({ body: 'xyz', ended: true, reusable: false });
  });

  it('counts bytes that follow the end of the reply', () => {
    const read = parse('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n');
    expect(read).toMatchObject({ body: 'ok', ended: true, extra: 17 });
  });

  it('joins repeated fields as Node does and keeps each cookie', () => {
    const read = parse(
      'HTTP/1.1 200 OK\r\nVary: a\r\nvary: b\r\nSet-Cookie: x=1\r\nSet-Cookie: y=2\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n.',
    );
    expect(read.headers).toEqual({ vary: 'a, b', 'set-cookie': ['x=1', 'y=2'], 'content-length': '1' });
  });

  it.each([
    ['no status line', 'HTTP/2 200\r\n\r\n'],
    ['garbage', 'hello\r\n\r\n'],
    ['a header without a name', 'HTTP/1.1 200 OK\r\n: x\r\n\r\n'],
    ['a header name with a space', 'HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n'],
    ['conflicting lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n'],
    ['a length that is not a number', 'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n'],
    ['a chunk size that is not hex', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
    ['a chunk size line ending in LF only', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\nx\r\n'],
    ['a chunk without its CRLF', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nxyz'],
    ['a switch of protocols', 'HTTP/1.1 101 Switching Protocols\r\n\r\n'],
  ])('refuses %s', (_name, wire) => {
    expect(() => parse(wire)).toThrow(ReplyParseError);
  });

  it('refuses a head larger than 64 KiB, even when it never ends', () => {
    const big = `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(70_000)}`;
    expect(() => parse(big)).toThrow('the head is too large');
    expect(() => parse(`${big}\r\n\r\n`)).toThrow('the head is too large');
  });

  it('reports a reply cut short when the connection closes', () => {
    expect(() => parse('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc', [], { close: true })).toThrow(
      'the connection closed before the reply ended',
    );
    expect(() =>
      parse('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n', [], { close: true }),
    ).toThrow(ReplyParseError);
    expect(() => parse('', [], { close: true })).toThrow('no reply');
  });
});

import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BadlyEncodedReply, DecodedBody, DecodedReplyTooLarge } from './reply-decoding.js';
import {
  type BodySink,
  decodedReply,
  UndecodableReply,
  type UpstreamBody,
  type UpstreamReply,
} from './upstream-dispatch.js';

/** An upstream body that hands over `chunks` one per turn of the event loop, then ends or breaks. */
class ChunkedBody implements UpstreamBody {
  cancelled = false;
  pauses = 0;
  resumes = 0;

  constructor(
    private readonly chunks: Buffer[],
    private readonly breakWith?: Error,
  ) {}

  whole(): Promise<Buffer> {
    return Promise.resolve(Buffer.concat(this.chunks));
  }

  async each(sink: BodySink): Promise<void> {
    for (const c of this.chunks) {
      await new Promise((r) => setImmediate(r));
      if (this.cancelled) return;
      sink.data(c);
    }
    if (this.breakWith) throw this.breakWith;
  }

  pause(): void {
    this.pauses++;
  }
  resume(): void {
    this.resumes++;
  }
  cancel(): void {
    this.cancelled = true;
  }
}

/** `bytes` cut into pieces of `size` bytes, as a slow upstream sends them. */
function pieces(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

const text = Buffer.from(
  `${'data: {"choices":[{"delta":{"content":"héllo 世界"}}]}\n\n'.repeat(50)}data: [DONE]\n\n`,
);

const reply = (headers: Record<string, string>, body: UpstreamBody): UpstreamReply => ({
  statusCode: 200,
  headers,
  body,
});

describe('decoding a compressed upstream body', () => {
  it('decodes gzip, br, zlib and raw deflate fed a byte at a time, handing on the bytes as they come', async () => {
    for (const [coding, bytes] of [
      ['gzip', zlib.gzipSync(text)],
      ['br', zlib.brotliCompressSync(text)],
      ['deflate', zlib.deflateSync(text)],
      ['deflate', zlib.deflateRawSync(text)],
    ] as const) {
      const got: Buffer[] = [];
      await new DecodedBody(new ChunkedBody(pieces(bytes, 1)), [coding]).each({ data: (c) => got.push(c) });
      expect(Buffer.concat(got).equals(text), coding).toBe(true);
    }
  });

  it('undoes several codings in the reverse of the order the upstream applied them', async () => {
    const bytes = zlib.brotliCompressSync(zlib.gzipSync(text));
    const r = decodedReply(
      reply(
        { 'content-encoding': 'gzip, br', 'content-length': String(bytes.length) },
        new ChunkedBody(pieces(bytes, 7)),
      ),
    );
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.headers['content-length']).toBeUndefined();
    expect((await r.body.whole()).equals(text)).toBe(true);
    expect(
      (
        await decodedReply(
          reply({ 'content-encoding': 'x-gzip' }, new ChunkedBody([zlib.gzipSync(text)])),
        ).body.whole()
      ).equals(text),
    ).toBe(true);
  });

  it('leaves an identity body as it is, and refuses an encoding it has no decoder for', () => {
    const plain = reply({ 'content-type': 'application/json' }, new ChunkedBody([text]));
    expect(decodedReply(plain)).toBe(plain);
    const identity = reply({ 'content-encoding': 'identity' }, new ChunkedBody([text]));
    expect(decodedReply(identity)).toBe(identity);
    expect(() => decodedReply(reply({ 'content-encoding': 'zstd' }, new ChunkedBody([])))).toThrow(
      UndecodableReply,
    );
  });

  it('fails on bytes that are not what their encoding says, and stops reading the upstream', async () => {
    const inner = new ChunkedBody([
      zlib.gzipSync(text).subarray(0, 30),
      Buffer.from('this is not gzip at all'),
    ]);
    const body = new DecodedBody(inner, ['gzip']);
    const err = await body.whole().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadlyEncodedReply);
    expect(err).toMatchObject({ code: 'UPSTREAM_BAD_ENCODING' });
    expect(inner.cancelled).toBe(true);
  });

  it('passes on a body that breaks off, keeps to a size limit, and hands pause, resume and cancel to the upstream', async () => {
    const reset = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    const broken = new DecodedBody(new ChunkedBody(pieces(zlib.gzipSync(text), 64), reset), ['gzip']);
    await expect(broken.whole()).rejects.toBe(reset);

    const bounded = await new DecodedBody(new ChunkedBody([zlib.gzipSync(text)]), ['gzip']).whole(10);
    expect(bounded.equals(text.subarray(0, 10))).toBe(true);

    const inner = new ChunkedBody(pieces(zlib.gzipSync(text), 16));
    const body = new DecodedBody(inner, ['gzip']);
    const reading = body.each({
      data() {
        body.pause();
        body.resume();
        body.cancel();
      },
    });
    await reading;
    expect([inner.pauses, inner.resumes, inner.cancelled]).toEqual([1, 1, true]);
  });

  it('stops decoding a body read whole past its limit and stops reading the upstream', async () => {
    // 16 MiB of zeros in a few KiB of gzip, against a 1 MiB limit.
    const inner = new ChunkedBody(pieces(zlib.gzipSync(Buffer.alloc(16 * 1024 * 1024)), 1024));
    const body = new DecodedBody(inner, ['gzip'], 1024 * 1024);
    const err = await body.whole().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DecodedReplyTooLarge);
    expect(err).toMatchObject({ code: 'UPSTREAM_BAD_ENCODING' });
    expect(inner.cancelled).toBe(true);
    // Under the limit, the same body decodes whole.
    const fits = new DecodedBody(new ChunkedBody([zlib.gzipSync(text)]), ['gzip'], text.length);
    expect((await fits.whole()).equals(text)).toBe(true);
  });
});

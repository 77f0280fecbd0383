import zlib from 'node:zlib';
import type { BodySink, UpstreamBody } from './upstream-body.js';

// Some proxies compress a reply although the gateway asked for `accept-encoding: identity`. The
// relay meters and relays the decoded bytes, decoded as they arrive with Node's zlib streams.

export type ContentDecoding = 'gzip' | 'deflate' | 'br';

/** The compressed bytes are not what their content-encoding says: an upstream fault. */
export class BadlyEncodedReply extends Error {
  readonly code = 'UPSTREAM_BAD_ENCODING';
  constructor(encoding: string, cause: Error) {
    super(`The upstream's ${encoding} body could not be decoded: ${cause.message}`);
    this.name = 'BadlyEncodedReply';
  }
}

/** A reply read whole (JSON) may not decode to more than this: a small gzip bomb would fill the memory. */
export const DECODED_WHOLE_LIMIT = 64 * 1024 * 1024;

/** A compressed reply read whole decoded past the limit: refused as an upstream fault, the rest not read. */
export class DecodedReplyTooLarge extends Error {
  // Answered like any undecodable reply (transport-failure.ts): a 502, the channel not blamed for a timeout.
  readonly code = 'UPSTREAM_BAD_ENCODING';
  constructor(limit: number) {
    super(
      `The upstream's compressed reply decodes to more than ${limit} bytes, the limit for a reply read whole`,
    );
    this.name = 'DecodedReplyTooLarge';
  }
}

type Decoder = zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.BrotliDecompress;

function decoderFor(coding: ContentDecoding, first: Buffer | undefined): Decoder {
  if (coding === 'gzip') return zlib.createGunzip();
  if (coding === 'br') return zlib.createBrotliDecompress();
  // `deflate` should be zlib-wrapped, but some servers send raw deflate: a zlib stream's first
  // byte names method 8 in its low four bits.
  return first === undefined || (first[0]! & 0x0f) === 0x08 ? zlib.createInflate() : zlib.createInflateRaw();
}

/**
 * An upstream body decoded on the way: `codings` in the order the upstream applied them. The
 * decoded bytes reach the reader as the decoders give them; pause and resume hold the upstream.
 */
export class DecodedBody implements UpstreamBody {
  private decoders: Decoder[] = [];
  private settled = false;
  private finish: (() => void) | undefined;

  constructor(
    private readonly inner: UpstreamBody,
    private readonly codings: ContentDecoding[],
    private readonly limit = DECODED_WHOLE_LIMIT,
  ) {}

  /** With `max`, the rest is decoded and dropped (error bodies); without, past `limit` it fails. */
  async whole(max?: number): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    const limit = this.limit;
    await this.each({
      data(chunk) {
        if (max === undefined) {
          size += chunk.length;
          // Thrown from the sink: `each` cancels the upstream and rejects with it.
          if (size > limit) throw new DecodedReplyTooLarge(limit);
          chunks.push(chunk);
          return;
        }
        if (size < max) chunks.push(size + chunk.length > max ? chunk.subarray(0, max - size) : chunk);
        size += chunk.length;
      },
    });
    return Buffer.concat(chunks);
  }

  each(sink: BodySink): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (err?: Error) => {
        if (this.settled) return;
        this.settled = true;
        this.finish = undefined;
        for (const d of this.decoders) d.destroy();
        if (err) reject(err);
        else resolve();
      };
      this.finish = () => done();
      let head: Decoder | undefined;
      // The outermost coding is undone first; a chain's decoders are made when the first bytes
      // arrive, since raw and wrapped deflate differ in them.
      const start = (first: Buffer): Decoder => {
        const order = [...this.codings].reverse();
        this.decoders = order.map((c, i) => decoderFor(c, i === 0 ? first : undefined));
        this.decoders.forEach((d, i) => {
          d.on('error', (err: Error) => {
            done(new BadlyEncodedReply(order[i] as string, err));
            this.inner.cancel();
          });
          const next = this.decoders[i + 1];
          if (next) d.on('data', (c: Buffer) => next.write(c));
          else d.on('data', (c: Buffer) => deliver(c));
          d.on('end', () => (next ? next.end() : done()));
        });
        return this.decoders[0] as Decoder;
      };
      const deliver = (chunk: Buffer) => {
        if (this.settled) return;
        try {
          sink.data(chunk);
        } catch (err) {
          done(err as Error);
          this.inner.cancel();
        }
      };
      this.inner
        .each({
          data(chunk) {
            if (chunk.length === 0) return;
            head ??= start(chunk);
            head.write(chunk);
          },
        })
        .then(
          () => {
            if (this.settled) return;
            // An empty body decodes to nothing.
            if (!head) done();
            else head.end();
          },
          (err: Error) => done(err),
        );
    });
  }

  pause(): void {
    this.inner.pause();
  }

  resume(): void {
    this.inner.resume();
  }

  cancel(): void {
    this.inner.cancel();
    this.finish?.();
  }
}

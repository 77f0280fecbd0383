import { Transform, type TransformCallback } from 'node:stream';

// Audio and image-edit uploads arrive as multipart/form-data and are streamed to the upstream, not
// buffered whole (issue 4). When the channel maps the model to another name, the `model` text
// field must change inside that stream: this rewriter passes every byte through except that
// field's value, holding back at most a delimiter's length of bytes and one part's headers.

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
/** Part headers are a few lines; anything longer is not a form field we could be looking for. */
const MAX_HEADER_BYTES = 16 * 1024;
/** A text field's old value is dropped; one this long means the body is not what we think it is. */
const MAX_FIELD_BYTES = 64 * 1024;

/** The boundary parameter of a multipart content type, or null. */
export function multipartBoundary(contentType: string): string | null {
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!/^\s*multipart\//i.test(contentType) || !m) return null;
  return m[1] ?? m[2] ?? null;
}

type State = 'preamble' | 'afterDelimiter' | 'headers' | 'body' | 'fieldValue' | 'epilogue';

/**
 * Replaces the value of one text field in a multipart body fed in chunks, or appends the field
 * before the closing delimiter when the body has none. `push` and `end` return the bytes to send.
 */
export class MultipartFieldRewriter {
  private readonly delimiter: Buffer;
  private readonly newValue: Buffer;
  private pending: Buffer = Buffer.alloc(0);
  private state: State = 'preamble';
  private atStart = true;
  private replaced = false;
  private skipped = 0;

  constructor(
    boundary: string,
    private readonly field: string,
    value: string,
  ) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
    this.newValue = Buffer.from(value);
  }

  /** True once the field was found and rewritten (or appended). */
  get done(): boolean {
    return this.replaced;
  }

  push(chunk: Buffer): Buffer[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const out: Buffer[] = [];
    this.run(out, false);
    return out;
  }

  end(): Buffer[] {
    const out: Buffer[] = [];
    this.run(out, true);
    if (this.pending.length > 0) out.push(this.pending);
    this.pending = Buffer.alloc(0);
    return out;
  }

  private take(n: number): Buffer {
    const head = this.pending.subarray(0, n);
    this.pending = this.pending.subarray(n);
    return head;
  }

  private run(out: Buffer[], final: boolean): void {
    for (;;) {
      const p = this.pending;
      switch (this.state) {
        case 'preamble': {
          // The first delimiter may open the body without the CRLF that precedes the others.
          if (this.atStart) {
            const bare = this.delimiter.subarray(2);
            if (p.length < bare.length && !final && bare.subarray(0, p.length).equals(p)) return;
            this.atStart = false;
            if (p.subarray(0, bare.length).equals(bare)) {
              out.push(this.take(bare.length));
              this.state = 'afterDelimiter';
              continue;
            }
          }
          if (!this.passToDelimiter(out, final)) return;
          this.state = 'afterDelimiter';
          continue;
        }
        case 'body': {
          if (!this.passToDelimiter(out, final)) return;
          this.state = 'afterDelimiter';
          continue;
        }
        case 'fieldValue': {
          const at = p.indexOf(this.delimiter);
          if (at === -1) {
            // Keep a possible delimiter prefix; drop the rest of the old value.
            const keep = Math.min(p.length, this.delimiter.length - 1);
            this.skipped += p.length - keep;
            this.pending = p.subarray(p.length - keep);
            if (this.skipped > MAX_FIELD_BYTES)
              throw new Error(`multipart field "${this.field}" is too long`);
            return;
          }
          this.pending = p.subarray(at);
          out.push(this.newValue);
          this.replaced = true;
          out.push(this.take(this.delimiter.length));
          this.state = 'afterDelimiter';
          continue;
        }
        case 'afterDelimiter': {
          if (p.length < 2) return;
          if (p[0] === 0x2d && p[1] === 0x2d) {
            // The closing delimiter: a missing field goes in just before it. Its delimiter line was
            // already sent, so the new part continues from there and ends with a fresh delimiter
            // that the closing `--` then follows.
            if (!this.replaced) {
              this.replaced = true;
              const disposition = `Content-Disposition: form-data; name="${this.field}"`;
              out.push(Buffer.from(`\r\n${disposition}\r\n\r\n`), this.newValue, this.delimiter);
            }
            this.state = 'epilogue';
            continue;
          }
          this.state = 'headers';
          continue;
        }
        case 'headers': {
          const at = p.indexOf(HEADER_END);
          if (at === -1) {
            if (p.length > MAX_HEADER_BYTES) throw new Error('multipart part headers are too long');
            return;
          }
          const headers = p.toString('latin1', 0, at);
          out.push(this.take(at + HEADER_END.length));
          this.state = !this.replaced && this.isTargetField(headers) ? 'fieldValue' : 'body';
          this.skipped = 0;
          continue;
        }
        case 'epilogue': {
          if (p.length > 0) out.push(this.take(p.length));
          return;
        }
      }
    }
  }

  /** Sends bytes up to the next delimiter (included); false when more input is needed. */
  private passToDelimiter(out: Buffer[], final: boolean): boolean {
    const p = this.pending;
    const at = p.indexOf(this.delimiter);
    if (at === -1) {
      const keep = final ? 0 : Math.min(p.length, this.delimiter.length - 1);
      if (p.length > keep) out.push(this.take(p.length - keep));
      return false;
    }
    out.push(this.take(at + this.delimiter.length));
    return true;
  }

  private isTargetField(headers: string): boolean {
    for (const line of headers.split(CRLF.toString())) {
      const m = /^content-disposition:\s*form-data\s*;(.*)$/i.exec(line.trim());
      if (!m) continue;
      const name =
        /(?:^|;)\s*name="([^"]*)"/i.exec(m[1] ?? '') ?? /(?:^|;)\s*name=([^;\s]+)/i.exec(m[1] ?? '');
      const isFile = /(?:^|;)\s*filename\*?=/i.test(m[1] ?? '');
      return !isFile && name?.[1] === this.field;
    }
    return false;
  }
}

/** The rewriter as a Node stream, for piping an upload straight to the upstream request. */
export function multipartFieldTransform(boundary: string, field: string, value: string): Transform {
  const rewriter = new MultipartFieldRewriter(boundary, field, value);
  return new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
      try {
        for (const b of rewriter.push(chunk)) this.push(b);
        cb();
      } catch (err) {
        cb(err as Error);
      }
    },
    flush(cb: TransformCallback) {
      try {
        for (const b of rewriter.end()) this.push(b);
        cb();
      } catch (err) {
        cb(err as Error);
      }
    },
  });
}

/** Rewrites a whole multipart body held in memory. */
export function rewriteMultipartField(body: Buffer, boundary: string, field: string, value: string): Buffer {
  const rewriter = new MultipartFieldRewriter(boundary, field, value);
  return Buffer.concat([...rewriter.push(body), ...rewriter.end()]);
}

import { PassThrough, type Readable } from 'node:stream';

export interface PeekedForm {
  /** The field's value, or undefined when the form has no such field. */
  value: string | undefined;
  /** The whole form again: the bytes read so far followed by the rest of the stream. */
  body: Readable;
}

/**
 * Reads a multipart/form-data stream only as far as needed to learn one text field (the model,
 * for routing and pricing), then hands back a stream of the entire form so the upload goes on to
 * the upstream without being held in memory. A client that sends the file before the field makes
 * us hold the file until the field arrives, bounded by `maxBytes`.
 */
export async function peekFormField(
  stream: Readable,
  boundary: string,
  field: string,
  maxBytes: number,
): Promise<PeekedForm> {
  const chunks: Buffer[] = [];
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  let size = 0;
  let value: string | undefined;
  let found = false;
  const iterator = stream[Symbol.asyncIterator]();
  let ended = false;
  while (!found) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    const chunk = next.value as Buffer;
    const previous = chunks.at(-1);
    chunks.push(chunk);
    size += chunk.length;
    // Only a new part delimiter can complete the field, so the whole prefix is searched again only
    // when one arrives: a large file before the field costs one pass, not one per chunk.
    const window = previous ? Buffer.concat([previous.subarray(-delimiter.length), chunk]) : chunk;
    const result = window.includes(delimiter) ? findField(Buffer.concat(chunks), boundary, field) : null;
    if (result !== null) {
      value = result;
      found = true;
    } else if (size > maxBytes) {
      throw new Error(`the form field "${field}" was not found in the first ${maxBytes} bytes`);
    }
  }
  if (!found) value = findField(Buffer.concat(chunks), boundary, field) ?? undefined;
  const body = new PassThrough();
  for (const c of chunks) body.write(c);
  if (ended) {
    body.end();
  } else {
    // The rest of the upload streams through; the iterator already holds the stream's reader.
    void (async () => {
      try {
        for (;;) {
          const next = await iterator.next();
          if (next.done) break;
          if (!body.write(next.value as Buffer)) await new Promise((r) => body.once('drain', r));
        }
        body.end();
      } catch (err) {
        body.destroy(err as Error);
      }
    })();
  }
  return { value, body };
}

/** The value of a complete text field in the bytes so far, or null if it has not fully arrived. */
export function findField(buf: Buffer, boundary: string, field: string): string | null {
  const delimiter = Buffer.from(`--${boundary}`);
  let at = buf.indexOf(delimiter);
  while (at !== -1) {
    const headersStart = at + delimiter.length + 2;
    const headersEnd = buf.indexOf('\r\n\r\n', headersStart);
    if (headersEnd === -1) return null;
    const headers = buf.subarray(headersStart, headersEnd).toString('latin1');
    const next = buf.indexOf(Buffer.from(`\r\n--${boundary}`), headersEnd + 4);
    const named = new RegExp(`name="${field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`, 'i').test(headers);
    if (named && !/filename=/i.test(headers)) {
      if (next === -1) return null;
      return buf
        .subarray(headersEnd + 4, next)
        .toString('utf8')
        .trim();
    }
    if (next === -1) return null;
    at = next + 2;
  }
  return null;
}

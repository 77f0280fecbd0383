import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  MultipartFieldRewriter,
  multipartBoundary,
  multipartFieldTransform,
  rewriteMultipartField,
} from './multipart-field.js';

async function encodeForm(
  fields: [string, string | Blob, string?][],
): Promise<{ body: Buffer; type: string }> {
  const form = new FormData();
  for (const [name, value, filename] of fields) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, value, filename);
  }
  const res = new Response(form);
  return { body: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') ?? '' };
}

async function decodeForm(body: Buffer, type: string): Promise<FormData> {
  return new Response(body, { headers: { 'content-type': type } }).formData();
}

function feed(rewriter: MultipartFieldRewriter, body: Buffer, cuts: number[]): Buffer {
  const out: Buffer[] = [];
  let prev = 0;
  for (const cut of [...cuts, body.length]) {
    out.push(...rewriter.push(body.subarray(prev, cut)));
    prev = cut;
  }
  out.push(...rewriter.end());
  return Buffer.concat(out);
}

const audio = new Blob([Buffer.alloc(3000, 0x2d)], { type: 'audio/mpeg' });

describe('multipartBoundary', () => {
  it('reads plain and quoted boundaries', () => {
    expect(multipartBoundary('multipart/form-data; boundary=----abc123')).toBe('----abc123');
    expect(multipartBoundary('multipart/form-data; charset=utf-8; boundary="a b"')).toBe('a b');
    expect(multipartBoundary('application/json')).toBeNull();
  });
});

describe('MultipartFieldRewriter', () => {
  it('replaces the model field after a large file part, byte-exact elsewhere', async () => {
    const { body, type } = await encodeForm([
      ['file', audio, 'speech.mp3'],
      ['model', 'whisper-alias'],
      ['response_format', 'json'],
    ]);
    const boundary = multipartBoundary(type) ?? '';
    const out = rewriteMultipartField(body, boundary, 'model', 'whisper-1');
    expect(out.toString('latin1')).toBe(
      body.toString('latin1').replace('\r\n\r\nwhisper-alias\r\n', '\r\n\r\nwhisper-1\r\n'),
    );
    const form = await decodeForm(out, type);
    expect(form.get('model')).toBe('whisper-1');
    expect(form.get('response_format')).toBe('json');
    expect((form.get('file') as File).size).toBe(3000);
  });

  it('gives the same bytes however the body is split', async () => {
    const { body, type } = await encodeForm([
      ['model', 'alias'],
      ['file', new Blob([Buffer.from('--not a boundary\r\n--')]), 'a.wav'],
      ['language', 'en'],
    ]);
    const boundary = multipartBoundary(type) ?? '';
    const expected = rewriteMultipartField(body, boundary, 'model', 'gpt-4o-transcribe');
    // Every single split point, then byte-by-byte.
    for (let cut = 1; cut < body.length; cut++) {
      const out = feed(new MultipartFieldRewriter(boundary, 'model', 'gpt-4o-transcribe'), body, [cut]);
      expect(out.equals(expected), `split at ${cut}`).toBe(true);
    }
    const cuts = Array.from({ length: body.length - 1 }, (_, i) => i + 1);
    expect(
      feed(new MultipartFieldRewriter(boundary, 'model', 'gpt-4o-transcribe'), body, cuts).equals(expected),
    ).toBe(true);
    expect((await decodeForm(expected, type)).get('model')).toBe('gpt-4o-transcribe');
  });

  it('appends the field when the form has none', async () => {
    const { body, type } = await encodeForm([
      ['file', audio, 'speech.mp3'],
      ['prompt', 'names: Ada'],
    ]);
    const boundary = multipartBoundary(type) ?? '';
    const rewriter = new MultipartFieldRewriter(boundary, 'model', 'whisper-1');
    const out = feed(rewriter, body, [100, 3100]);
    expect(rewriter.done).toBe(true);
    const form = await decodeForm(out, type);
    expect(form.get('model')).toBe('whisper-1');
    expect(form.get('prompt')).toBe('names: Ada');
    expect((form.get('file') as File).size).toBe(3000);
  });

  it('does not touch a file part named like the field', async () => {
    const { body, type } = await encodeForm([
      ['model', new Blob(['binary-model']), 'model.bin'],
      ['model', 'alias'],
    ]);
    const out = rewriteMultipartField(body, multipartBoundary(type) ?? '', 'model', 'real');
    const form = await decodeForm(out, type);
    const values = form.getAll('model');
    expect(await (values[0] as File).text()).toBe('binary-model');
    expect(values[1]).toBe('real');
  });

  it('works as a stream transform', async () => {
    const { body, type } = await encodeForm([
      ['file', audio, 'speech.mp3'],
      ['model', 'alias'],
    ]);
    const boundary = multipartBoundary(type) ?? '';
    const source = Readable.from([body.subarray(0, 1000), body.subarray(1000, 3050), body.subarray(3050)]);
    const chunks: Buffer[] = [];
    for await (const c of source.pipe(multipartFieldTransform(boundary, 'model', 'whisper-1')))
      chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(rewriteMultipartField(body, boundary, 'model', 'whisper-1'))).toBe(
      true,
    );
  });
});

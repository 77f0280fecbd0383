import { skipJsonValue } from '../json-splice.js';
import { fromOpenAiUsage, type Usage } from '../usage.js';
import { chunkText } from './stream-meter.js';

// Usage of a non-streaming JSON reply. OpenAI writes `usage` as the last (or nearly last) top-level
// member, while the part before it can be megabytes (base64 images, long completions). So the
// reply is searched from its end for the key, only the usage object is parsed, and the rest is
// checked cheaply to prove that this `usage` belongs to the top-level object. Anything that cannot
// be proven that way falls back to parsing the whole body.

const USAGE_KEY = Buffer.from('"usage"');
const BACKSLASH = 0x5c;

function isSpace(b: number | undefined): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

function skipSpace(buf: Buffer, i: number): number {
  while (i < buf.length && isSpace(buf[i])) i++;
  return i;
}

/** A quote preceded by an odd number of backslashes is inside a string, not a delimiter. */
function isEscaped(buf: Buffer, quote: number): boolean {
  let slashes = 0;
  for (let j = quote - 1; j >= 0 && buf[j] === BACKSLASH; j--) slashes++;
  return slashes % 2 === 1;
}

type TailResult = { found: true; value: unknown } | { found: false };

/**
 * The top-level `usage` value found from the tail, or `found: false` when the tail scan cannot
 * decide (then the caller parses the whole body).
 */
function usageFromTail(body: Buffer): TailResult | 'absent' {
  let at = body.lastIndexOf(USAGE_KEY);
  while (at !== -1 && isEscaped(body, at)) at = at > 0 ? body.lastIndexOf(USAGE_KEY, at - 1) : -1;
  // In valid JSON an unescaped `"usage"` is a string token; without one there is no usage key.
  if (at === -1) return 'absent';
  let i = skipSpace(body, at + USAGE_KEY.length);
  if (body[i] !== 0x3a) return { found: false };
  i = skipSpace(body, i + 1);
  const end = skipJsonValue(body, i);
  if (end === -1) return { found: false };
  const after = skipSpace(body, end);
  let topLevel = false;
  if (body[after] === 0x7d) {
    // The object holding `usage` closes at the very end of the document: it is the top level.
    topLevel = skipSpace(body, after + 1) === body.length;
  } else if (body[after] === 0x2c) {
    // More members follow (e.g. `system_fingerprint`). They and the closing brace must form the
    // rest of one object for the holder to be the top level.
    try {
      JSON.parse(`{${body.toString('utf8', after + 1)}`);
      topLevel = true;
    } catch {
      topLevel = false;
    }
  }
  if (!topLevel) return { found: false };
  try {
    return { found: true, value: JSON.parse(body.toString('utf8', i, end)) };
  } catch {
    return { found: false };
  }
}

function parseBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The usage of a JSON reply (chat, completions, embeddings, images, transcriptions, rerank), or null. */
export function readJsonUsage(body: Buffer): Usage | null {
  const tail = usageFromTail(body);
  if (tail === 'absent') return null;
  if (tail.found) return fromOpenAiUsage(tail.value);
  const parsed = parseBody(body);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  return fromOpenAiUsage((parsed as Record<string, unknown>).usage);
}

/**
 * The generated text of a JSON reply, for local counting when it has no usage: chat messages and
 * tool calls, completion texts, Responses output items, transcription text.
 */
export function jsonCompletionText(body: Buffer): string {
  const parsed = parseBody(body);
  const out: string[] = [];
  chunkText(parsed, out);
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
    const reply = parsed as Record<string, unknown>;
    if (typeof reply.text === 'string') out.push(reply.text);
    if (Array.isArray(reply.output)) {
      for (const item of reply.output) responsesItemText(item, out);
    }
  }
  return out.join('');
}

function responsesItemText(item: unknown, out: string[]): void {
  if (typeof item !== 'object' || item === null) return;
  const it = item as Record<string, unknown>;
  if (typeof it.name === 'string') out.push(it.name);
  if (typeof it.arguments === 'string') out.push(it.arguments);
  for (const key of ['content', 'summary'] as const) {
    const parts = it[key];
    if (!Array.isArray(parts)) continue;
    for (const p of parts) {
      if (typeof p === 'object' && p !== null && typeof (p as Record<string, unknown>).text === 'string') {
        out.push((p as Record<string, unknown>).text as string);
      }
    }
  }
}

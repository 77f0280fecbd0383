// Edits top-level members of a JSON object in its original bytes. A request body is forwarded as
// the client sent it unless a field must change, which is cheaper; when one must, splicing the
// member keeps every other byte (number formatting, big integers, key order, base64 images in
// messages) exactly as sent and avoids re-serialising a body that may be megabytes long.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** Byte offsets of one top-level member: `start` is its key's opening quote, `end` is past its value. */
export interface JsonMemberSpan {
  key: string;
  start: number;
  valueStart: number;
  end: number;
}

export interface JsonObjectLayout {
  members: JsonMemberSpan[];
  /** Offset of the object's closing brace. */
  close: number;
}

function isSpace(b: number | undefined): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

function skipSpace(buf: Buffer, i: number): number {
  while (i < buf.length && isSpace(buf[i])) i++;
  return i;
}

/** Offset just past the string whose opening quote is at `i`, or -1 when it never closes. */
export function skipJsonString(buf: Buffer, i: number): number {
  let q = buf.indexOf(QUOTE, i + 1);
  while (q !== -1) {
    let slashes = 0;
    for (let j = q - 1; buf[j] === BACKSLASH; j--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    q = buf.indexOf(QUOTE, q + 1);
  }
  return -1;
}

/** Offset just past the value starting at `i` (objects and arrays are skipped by depth), or -1. */
export function skipJsonValue(buf: Buffer, i: number): number {
  const first = buf[i];
  if (first === QUOTE) return skipJsonString(buf, i);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    let j = i;
    while (j < buf.length) {
      const b = buf[j];
      if (b === QUOTE) {
        j = skipJsonString(buf, j);
        if (j === -1) return -1;
        continue;
      }
      if (b === OPEN_BRACE || b === OPEN_BRACKET) depth++;
      else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return j + 1;
      }
      j++;
    }
    return -1;
  }
  // A literal (number, true, false, null) runs to the next delimiter.
  let j = i;
  while (j < buf.length) {
    const b = buf[j];
    if (b === COMMA || b === CLOSE_BRACE || b === CLOSE_BRACKET || isSpace(b)) break;
    j++;
  }
  return j > i ? j : -1;
}

/**
 * The top-level members of a JSON object text, or null when the text is not one object. The
 * values are located, not validated: callers pass bodies that already parsed as JSON.
 */
export function scanJsonObject(buf: Buffer): JsonObjectLayout | null {
  let i = skipSpace(buf, 0);
  if (buf[i] !== OPEN_BRACE) return null;
  i = skipSpace(buf, i + 1);
  const members: JsonMemberSpan[] = [];
  if (buf[i] === CLOSE_BRACE) return skipSpace(buf, i + 1) === buf.length ? { members, close: i } : null;
  for (;;) {
    if (buf[i] !== QUOTE) return null;
    const start = i;
    const keyEnd = skipJsonString(buf, i);
    if (keyEnd === -1) return null;
    const rawKey = buf.toString('utf8', i + 1, keyEnd - 1);
    const key = rawKey.includes('\\') ? (JSON.parse(`"${rawKey}"`) as string) : rawKey;
    i = skipSpace(buf, keyEnd);
    if (buf[i] !== COLON) return null;
    const valueStart = skipSpace(buf, i + 1);
    const end = skipJsonValue(buf, valueStart);
    if (end === -1) return null;
    members.push({ key, start, valueStart, end });
    i = skipSpace(buf, end);
    if (buf[i] === COMMA) {
      i = skipSpace(buf, i + 1);
      continue;
    }
    if (buf[i] !== CLOSE_BRACE) return null;
    return skipSpace(buf, i + 1) === buf.length ? { members, close: i } : null;
  }
}

/** The raw JSON text of a top-level member's value. */
export function memberText(buf: Buffer, m: JsonMemberSpan): string {
  return buf.toString('utf8', m.valueStart, m.end);
}

export interface JsonMemberEdits {
  /** Member name -> new value as JSON text; replaces the value in place or appends the member. */
  set?: Record<string, string>;
  remove?: readonly string[];
}

/**
 * Applies the edits to the object's bytes. Untouched members keep their bytes, including the
 * whitespace inside them; only the separators between members are rewritten as a plain comma.
 * Duplicate keys are all edited, as a JSON parser would keep only the last.
 */
export function spliceJsonObject(buf: Buffer, layout: JsonObjectLayout, edits: JsonMemberEdits): Buffer {
  const set = edits.set ?? {};
  const remove = new Set(edits.remove ?? []);
  const parts: Buffer[] = [];
  const seen = new Set<string>();
  const first = layout.members[0];
  parts.push(buf.subarray(0, first ? first.start : layout.close));
  let count = 0;
  const sep = Buffer.from(',');
  for (const m of layout.members) {
    if (remove.has(m.key)) continue;
    if (count++ > 0) parts.push(sep);
    const replacement = set[m.key];
    if (replacement === undefined) {
      parts.push(buf.subarray(m.start, m.end));
    } else {
      seen.add(m.key);
      parts.push(buf.subarray(m.start, m.valueStart), Buffer.from(replacement));
    }
  }
  for (const [key, value] of Object.entries(set)) {
    if (seen.has(key) || remove.has(key)) continue;
    if (count++ > 0) parts.push(sep);
    parts.push(Buffer.from(`${JSON.stringify(key)}:${value}`));
  }
  const last = layout.members[layout.members.length - 1];
  // Whitespace before the closing brace is kept only when the object had members to begin with.
  parts.push(buf.subarray(last ? last.end : layout.close));
  return Buffer.concat(parts);
}

/**
 * Adds members that the object does not have, before its closing brace, without locating the
 * others: for a body that parsed as one object, its last non-space byte is that brace. The cost is
 * one copy, not a walk through every member (a long `messages` array included). Null when the
 * text does not end in a closing brace.
 */
export function appendJsonMembers(
  buf: Buffer,
  hasMembers: boolean,
  added: Record<string, string>,
): Buffer | null {
  let close = buf.length - 1;
  while (close >= 0 && isSpace(buf[close])) close--;
  if (buf[close] !== CLOSE_BRACE) return null;
  let text = '';
  for (const [key, value] of Object.entries(added)) {
    text += `${hasMembers || text !== '' ? ',' : ''}${JSON.stringify(key)}:${value}`;
  }
  return Buffer.concat([buf.subarray(0, close), Buffer.from(text), buf.subarray(close)]);
}

/**
 * The object's bytes with the edits applied, or null when the text cannot be laid out. `value` is
 * `buf` parsed: when the edits only add members it lacks, they are appended without laying out the
 * others; anything else is spliced member by member.
 */
export function editJsonObject(
  buf: Buffer,
  value: Record<string, unknown>,
  edits: JsonMemberEdits,
): Buffer | null {
  const set = edits.set ?? {};
  if (!edits.remove?.length && Object.keys(set).every((k) => !Object.hasOwn(value, k))) {
    const appended = appendJsonMembers(buf, Object.keys(value).length > 0, set);
    if (appended) return appended;
  }
  const layout = scanJsonObject(buf);
  return layout ? spliceJsonObject(buf, layout, edits) : null;
}

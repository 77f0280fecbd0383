import { CompletionTextSample } from '../text-sample.js';
import type { Usage } from '../usage.js';
import { fromOpenAiUsage, isMeaningfulUsage } from '../usage.js';
import { errorFromObject, type UpstreamErrorFields } from './errors.js';

// Reads an OpenAI-style SSE stream as its bytes pass to the client. It never changes a byte; the
// one thing it may do is leave out the usage-only chunk that the gateway itself asked for
// (`include_usage` added to the request) when the client did not ask for it.
//
// Cost: runs of complete events with nothing the meter needs (no usage object, no error, no
// [DONE]) are passed over with four native searches per chunk and kept by reference; other events
// are split into lines. JSON.parse runs only on events that carry a usage object or an error, and,
// lazily, on the retained events when no usage ever arrived and the text must be counted.

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const DATA = Buffer.from('data');
const EVENT = Buffer.from('event');
const DONE = Buffer.from('[DONE]');
const NEWLINE = Buffer.from('\n');
const BLANK_LINE = Buffer.from('\n\n');
const ERROR_WORD = Buffer.from('error');
const EMPTY = Buffer.alloc(0);

/** Retained event payloads beyond this are reduced to their text, so memory stays bounded. */
const DEFAULT_MAX_RETAINED_BYTES = 1024 * 1024;

export interface OpenAiStreamMeterOptions {
  /** Leave out the usage-only chunk (empty `choices`) from what the client receives. */
  dropUsageChunk?: boolean;
  maxRetainedBytes?: number;
}

type JsonRecord = Record<string, unknown>;

function isRecord(v: unknown): v is JsonRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseJson(data: Buffer): unknown {
  try {
    return JSON.parse(data.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * A mark the meter searches for, split where its rarer bytes begin. Searches start at a rare byte:
 * one opening with a quote stops at every JSON string and one opening with `e` at nearly every word,
 * several times slower. The lead is checked afterwards.
 */
interface Needle {
  lead: Buffer;
  tail: Buffer;
  length: number;
}

function needle(lead: string, tail: string): Needle {
  return { lead: Buffer.from(lead), tail: Buffer.from(tail), length: lead.length + tail.length };
}

const USAGE_KEY = needle('"', 'usage"');
const ERROR_KEY = needle('"e', 'rror"');
const DONE_MARK = needle('[', 'DONE]');
const EVENT_FIELD = needle('e', 'vent:');

/** Where the needle first appears from `from` on, or -1. */
function needleAt(data: Buffer, n: Needle, from: number): number {
  const lead = n.lead;
  let at = data.indexOf(n.tail, from + lead.length);
  while (at !== -1) {
    let k = lead.length;
    while (k > 0 && data[at - k] === lead[lead.length - k]) k--;
    if (k === 0) return at - lead.length;
    at = data.indexOf(n.tail, at + 1);
  }
  return -1;
}

/** Where `"usage"` first appears followed by an object (not `null`) from `from` on, or -1. */
function usageObjectAt(data: Buffer, from = 0): number {
  let at = needleAt(data, USAGE_KEY, from);
  while (at !== -1) {
    let i = at + USAGE_KEY.length;
    while (data[i] === 0x20 || data[i] === 0x09) i++;
    if (data[i] === COLON) {
      i++;
      while (data[i] === 0x20 || data[i] === 0x09) i++;
      if (data[i] === 0x7b) return at;
    }
    at = needleAt(data, USAGE_KEY, at + 1);
  }
  return -1;
}

/** Whether `word` is at `i`. */
function startsAt(data: Buffer, word: Buffer, i: number): boolean {
  return data.length - i >= word.length && data.compare(word, 0, word.length, i, i + word.length) === 0;
}

function hasUsageObject(data: Buffer): boolean {
  return usageObjectAt(data) !== -1;
}

/** Where an `event: error` line first appears from `from` on, or -1. */
function errorEventAt(data: Buffer, from: number): number {
  for (let at = needleAt(data, EVENT_FIELD, from); at !== -1; at = needleAt(data, EVENT_FIELD, at + 1)) {
    let i = at + EVENT_FIELD.length;
    if (data[i] === 0x20) i++;
    if (startsAt(data, ERROR_WORD, i)) return at;
  }
  return -1;
}

/** The first position at or after `from` where the meter must read events line by line, or `data.length`. */
function firstMarkAt(data: Buffer, from: number): number {
  let first = data.length;
  for (const at of [
    usageObjectAt(data, from),
    needleAt(data, ERROR_KEY, from),
    needleAt(data, DONE_MARK, from),
    errorEventAt(data, from),
  ]) {
    if (at !== -1 && at < first) first = at;
  }
  return first;
}

/** Calls `fn` with the data of each complete event in `region` (events end with a blank line, LF only). */
function eachEventData(region: Buffer, fn: (data: Buffer) => void): void {
  let start = 0;
  while (start < region.length) {
    let end = region.indexOf(BLANK_LINE, start);
    if (end === -1) end = region.length;
    const lines: Buffer[] = [];
    let at = start;
    while (at < end) {
      let lf = region.indexOf(LF, at);
      if (lf === -1 || lf > end) lf = end;
      const line = region.subarray(at, lf);
      if (line.length >= 5 && line.subarray(0, 4).equals(DATA) && line[4] === COLON) {
        lines.push(line[5] === 0x20 ? line.subarray(6) : line.subarray(5));
      }
      at = lf + 1;
    }
    if (lines.length > 0) fn(lines.length === 1 && lines[0] ? lines[0] : joinLines(lines));
    start = end + 2;
  }
}

/** The usage of one parsed chunk: top level (OpenAI), per choice (Moonshot), `x_groq`, or Responses. */
function usageOf(chunk: JsonRecord): Usage | null {
  if (isRecord(chunk.usage)) return fromOpenAiUsage(chunk.usage);
  if (Array.isArray(chunk.choices)) {
    for (const c of chunk.choices) if (isRecord(c) && isRecord(c.usage)) return fromOpenAiUsage(c.usage);
  }
  if (isRecord(chunk.x_groq) && isRecord(chunk.x_groq.usage)) return fromOpenAiUsage(chunk.x_groq.usage);
  if (isRecord(chunk.response) && isRecord(chunk.response.usage))
    return fromOpenAiUsage(chunk.response.usage);
  return null;
}

function pushString(out: string[], v: unknown): void {
  if (typeof v === 'string' && v) out.push(v);
}

function pushCalls(out: string[], calls: unknown): void {
  if (!Array.isArray(calls)) return;
  for (const call of calls) {
    if (!isRecord(call) || !isRecord(call.function)) continue;
    pushString(out, call.function.name);
    pushString(out, call.function.arguments);
  }
}

/**
 * The generated text of one chunk: content, reasoning, refusals, tool-call names and arguments
 * (chat), `text` (legacy completions) and `delta` strings (Responses API events).
 */
export function chunkText(chunk: unknown, out: string[]): void {
  if (!isRecord(chunk)) return;
  if (Array.isArray(chunk.choices)) {
    for (const c of chunk.choices) {
      if (!isRecord(c)) continue;
      pushString(out, c.text);
      const d = isRecord(c.delta) ? c.delta : isRecord(c.message) ? c.message : undefined;
      if (!d) continue;
      pushString(out, d.reasoning_content);
      pushString(out, d.reasoning);
      pushString(out, d.content);
      pushString(out, d.refusal);
      pushCalls(out, d.tool_calls);
      if (isRecord(d.function_call)) {
        pushString(out, d.function_call.name);
        pushString(out, d.function_call.arguments);
      }
    }
  }
  if (typeof chunk.type === 'string' && chunk.type.endsWith('.delta')) pushString(out, chunk.delta);
}

function streamErrorOf(chunk: unknown, eventType: string, data: Buffer): UpstreamErrorFields | null {
  if (isRecord(chunk)) {
    if (chunk.type === 'response.failed' && isRecord(chunk.response) && isRecord(chunk.response.error)) {
      return errorFromObject({ error: chunk.response.error });
    }
    if (chunk.error !== undefined || chunk.type === 'error' || eventType === 'error') {
      const fields = errorFromObject(chunk);
      if (fields) return fields;
    }
  }
  if (eventType !== 'error') return null;
  const message = data.toString('utf8').trim() || 'upstream stream error';
  return { message: message.slice(0, 500), type: 'upstream_error', code: null, param: null };
}

type Decision = 'emit' | 'drop';

/**
 * Runs of complete events kept for a text count that is needed only if no usage arrives. The first
 * run is kept by reference: a fast upstream sends the whole stream in one chunk. Later runs are
 * copied into one growing buffer: a slow upstream sends an event per chunk, and fifty small buffers
 * held by reference cost several times their bytes in objects and allocations.
 */
class RetainedRuns {
  private first: Buffer | null = null;
  private copies: Buffer | null = null;
  private copied = 0;

  add(run: Buffer): void {
    if (this.first === null) {
      this.first = run;
      return;
    }
    if (this.copies === null || this.copied + run.length > this.copies.length) {
      // 4 KiB and up: Buffer.allocUnsafe takes smaller ones from a shared slab it would keep alive.
      const grown = Buffer.allocUnsafe(Math.max(4096, 2 * (this.copied + run.length)));
      this.copies?.copy(grown, 0, 0, this.copied);
      this.copies = grown;
    }
    run.copy(this.copies, this.copied);
    this.copied += run.length;
  }

  /** The kept runs in order; each is a sequence of complete events. */
  forEach(fn: (run: Buffer) => void): void {
    if (this.first) fn(this.first);
    if (this.copies && this.copied > 0) fn(this.copies.subarray(0, this.copied));
  }

  clear(): void {
    this.first = null;
    this.copies = null;
    this.copied = 0;
  }
}

export class OpenAiStreamMeter {
  private readonly drop: boolean;
  private readonly maxRetained: number;
  /** Bytes of a line not yet terminated. */
  private carry: Buffer | null = null;
  /** The previous chunk ended in CR: an LF opening the next chunk completes that terminator. */
  private pendingCr: 'held' | 'out' | 'dropped' | null = null;
  private dataLines: Buffer[] = [];
  private eventType = '';
  private eventHasFields = false;
  /** Drop mode: bytes of the event in progress, released or discarded when it ends. */
  private held: Buffer[] = [];

  private lastUsage: Usage | null = null;
  private finalOutputSeen = false;
  /**
   * Events kept for counting text later, in stream order: runs passed over unread, and events read
   * line by line (framed again as events).
   */
  private retainedRuns = new RetainedRuns();
  private retainedBytes = 0;
  private readonly texts = new CompletionTextSample();

  /** `data: [DONE]` arrived. */
  done = false;
  /** An error event arrived mid-stream. */
  error: UpstreamErrorFields | null = null;
  /** True once the usage-only chunk was left out of the client's bytes. */
  droppedUsageChunk = false;

  constructor(options: OpenAiStreamMeterOptions = {}) {
    this.drop = options.dropUsageChunk ?? false;
    this.maxRetained = options.maxRetainedBytes ?? DEFAULT_MAX_RETAINED_BYTES;
  }

  /**
   * The last usage the upstream reported that says something (all-zero usage counts as none), or
   * null: then count `completionText()` locally.
   */
  get usage(): Usage | null {
    return this.lastUsage;
  }

  /**
   * The generated text, for counting when usage is missing or reports no output. Collection stops
   * once a usage with output tokens has arrived, so the text is then incomplete and not needed.
   */
  completionText(): string {
    this.reduceRetained();
    return this.texts.text();
  }

  /** How much a count of `completionText()` is scaled by: only a sample of a long text is kept. */
  completionTextRatio(): number {
    this.reduceRetained();
    return this.texts.ratio();
  }

  /**
   * Reads a chunk and returns the bytes for the client: the same Buffer when nothing is left out,
   * otherwise the chunk's bytes minus the usage-only event (held back until its event is complete),
   * as one Buffer or as the pieces around the event, in order. Pieces are not joined: that would
   * copy the whole chunk (a fast upstream's whole stream) for the sake of leaving out one event.
   */
  write(chunk: Buffer): Buffer | Buffer[] {
    if (chunk.length === 0) return chunk;
    const out: Buffer[] = [];
    let pos = 0;
    if (this.pendingCr !== null) {
      const owner = this.pendingCr;
      this.pendingCr = null;
      if (chunk[0] === LF) {
        pos = 1;
        if (this.drop && owner !== 'dropped')
          appendPiece(owner === 'held' ? this.held : out, chunk.subarray(0, 1));
      }
    }
    let lf = -2;
    let cr = chunk.indexOf(CR, pos);
    while (pos < chunk.length) {
      if (cr === -1 && this.atEventBoundary()) {
        const runEnd = this.unreadRunEnd(chunk, pos);
        if (runEnd > pos) {
          const run = chunk.subarray(pos, runEnd);
          this.passOver(run);
          if (this.drop) appendPiece(out, run);
          pos = runEnd;
          continue;
        }
      }
      if (lf !== -1 && lf < pos) lf = chunk.indexOf(LF, pos);
      if (cr !== -1 && cr < pos) cr = chunk.indexOf(CR, pos);
      const term = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (term === -1) {
        const rest = chunk.subarray(pos);
        this.carry = this.carry ? Buffer.concat([this.carry, rest]) : Buffer.from(rest);
        if (this.drop) appendPiece(this.held, rest);
        break;
      }
      let end = term + 1;
      let crAtEnd = false;
      if (chunk[term] === CR) {
        if (term + 1 < chunk.length) {
          if (chunk[term + 1] === LF) end = term + 2;
        } else {
          crAtEnd = true;
        }
      }
      const piece = chunk.subarray(pos, term);
      const line = this.carry ? Buffer.concat([this.carry, piece]) : piece;
      this.carry = null;
      if (this.drop) appendPiece(this.held, chunk.subarray(pos, end));
      const decision = this.line(line);
      if (decision !== null && this.drop) {
        if (decision === 'emit') for (const piece of this.held) appendPiece(out, piece);
        else this.droppedUsageChunk = true;
        this.held = [];
      }
      if (crAtEnd) this.pendingCr = decision === null ? 'held' : decision === 'emit' ? 'out' : 'dropped';
      pos = end;
    }
    if (!this.drop) return chunk;
    if (out.length === 0) return EMPTY;
    return out.length === 1 && out[0] ? out[0] : out;
  }

  /** Nothing of an event is pending: the next byte starts a line of a new event. */
  private atEventBoundary(): boolean {
    return this.carry === null && this.pendingCr === null && !this.eventHasFields && this.held.length === 0;
  }

  /**
   * The end of the longest run of complete events from `pos` that holds nothing the meter needs
   * (no usage object, error or [DONE]), or `pos` when there is none.
   */
  private unreadRunEnd(chunk: Buffer, pos: number): number {
    const mark = firstMarkAt(chunk, pos);
    if (mark < pos + 2) return pos;
    const boundary = chunk.lastIndexOf(BLANK_LINE, mark - 2);
    return boundary < pos ? pos : boundary + 2;
  }

  private passOver(run: Buffer): void {
    if (this.finalOutputSeen) return;
    this.retainedRuns.add(run);
    this.retainedBytes += run.length;
    if (this.retainedBytes > this.maxRetained) this.reduceRetained();
  }

  /** The upstream ended: reads an unterminated last event and returns bytes still held back. */
  end(): Buffer {
    let decision: Decision | null = null;
    if (this.carry) {
      const line = this.carry;
      this.carry = null;
      decision = this.line(line);
    }
    if (decision === null && this.eventHasFields) decision = this.dispatch();
    if (!this.drop) return EMPTY;
    const held = this.held;
    this.held = [];
    if (decision === 'drop') {
      this.droppedUsageChunk = true;
      return EMPTY;
    }
    return held.length ? Buffer.concat(held) : EMPTY;
  }

  /** One complete line (without terminator); returns a decision when it ended an event. */
  private line(line: Buffer): Decision | null {
    if (line.length === 0) return this.dispatch();
    if (line[0] === COLON) return null;
    const colon = line.indexOf(COLON);
    const name = colon === -1 ? line : line.subarray(0, colon);
    let value = colon === -1 ? EMPTY : line.subarray(colon + 1);
    if (value[0] === 0x20) value = value.subarray(1);
    if (name.equals(DATA)) {
      this.dataLines.push(value);
      this.eventHasFields = true;
    } else if (name.equals(EVENT)) {
      this.eventType = value.toString('utf8');
      this.eventHasFields = true;
    }
    return null;
  }

  private dispatch(): Decision {
    if (!this.eventHasFields) return 'emit';
    const lines = this.dataLines;
    const eventType = this.eventType;
    this.dataLines = [];
    this.eventType = '';
    this.eventHasFields = false;
    const data = lines.length === 1 && lines[0] ? lines[0] : joinLines(lines);
    if (data.equals(DONE)) {
      this.done = true;
      return 'emit';
    }
    const withUsage = hasUsageObject(data);
    const withError = eventType === 'error' || needleAt(data, ERROR_KEY, 0) !== -1;
    if (!withUsage && !withError) {
      this.retainEvent(lines);
      return 'emit';
    }
    const chunk = parseJson(data);
    if (withError) {
      const err = streamErrorOf(chunk, eventType, data);
      if (err) {
        this.error = err;
        return 'emit';
      }
    }
    const usage = withUsage && isRecord(chunk) ? usageOf(chunk) : null;
    if (isMeaningfulUsage(usage)) {
      this.lastUsage = usage;
      if (usage.outputTokens > 0) {
        this.finalOutputSeen = true;
        this.retainedRuns.clear();
        this.retainedBytes = 0;
      }
    }
    this.retainEvent(lines);
    if (!withUsage || !isRecord(chunk)) return 'emit';
    const usageOnly = isRecord(chunk.usage) && Array.isArray(chunk.choices) && chunk.choices.length === 0;
    return this.drop && usageOnly ? 'drop' : 'emit';
  }

  /** Keeps an event read line by line (its data lines), unless its text will not be needed. */
  private retainEvent(dataLines: readonly Buffer[]): void {
    if (this.finalOutputSeen) return;
    this.passOver(asEvent(dataLines));
  }

  private reduceRetained(): void {
    this.retainedRuns.forEach((run) => {
      eachEventData(run, (data) => chunkText(parseJson(data), this.texts.pieces));
    });
    this.retainedRuns.clear();
    this.retainedBytes = 0;
    this.texts.settle();
  }
}

/** Adds `piece` to `list`, extending the last piece instead when `piece` follows it in memory. */
function appendPiece(list: Buffer[], piece: Buffer): void {
  const last = list[list.length - 1];
  if (last && last.buffer === piece.buffer && last.byteOffset + last.length === piece.byteOffset) {
    list[list.length - 1] = Buffer.from(last.buffer, last.byteOffset, last.length + piece.length);
    return;
  }
  list.push(piece);
}

const DATA_FIELD = Buffer.from('data: ');

/** An event's data lines framed again as one event, as `eachEventData` reads it back. */
function asEvent(dataLines: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [];
  for (const line of dataLines) parts.push(DATA_FIELD, line, NEWLINE);
  parts.push(NEWLINE);
  return Buffer.concat(parts);
}

function joinLines(lines: Buffer[]): Buffer {
  const parts: Buffer[] = [];
  lines.forEach((l, i) => {
    if (i > 0) parts.push(NEWLINE);
    parts.push(l);
  });
  return Buffer.concat(parts);
}

/** The event that ends a client stream when the upstream failed after the first byte. */
export function formatErrorEvent(error: UpstreamErrorFields): Buffer {
  return Buffer.from(`data: ${JSON.stringify({ error })}\n\n`);
}

export const DONE_EVENT = Buffer.from('data: [DONE]\n\n');

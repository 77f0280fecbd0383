import type { Usage } from '../../billing/pricing/usage.js';
import type { UpstreamErrorFields } from '../openai/errors.js';
import { CompletionTextSample } from '../text-sample.js';
import { asArray, asRecord, asString, isRecord, parseJson } from '../translate/json-reading.js';
import { type SseEvent, SseReader } from '../translate/sse-framing.js';
import { geminiErrorFromObject } from './errors.js';
import { fromGeminiUsage } from './usage.js';

// Reads a Gemini `streamGenerateContent?alt=sse` stream as its bytes pass to the client unchanged.
// Every event is a whole GenerateContentResponse whose `usageMetadata` holds running totals, so
// only the last event that carries one matters: it is kept as bytes and parsed when asked for.
// Events are otherwise looked at with Buffer searches; the text is decoded only when it must be
// counted because no usage arrived.

const USAGE_KEY = Buffer.from('"usageMetadata"');
const FINISH_KEY = Buffer.from('"finishReason"');
const ERROR_KEY = Buffer.from('"error"');
const DEFAULT_MAX_RETAINED_BYTES = 1024 * 1024;

export interface GeminiStreamMeterOptions {
  maxRetainedBytes?: number;
}

const NOTHING_HELD = Buffer.alloc(0);

/** The generated text of one response: text and thought parts, function names and arguments. */
export function geminiResponseText(response: unknown, out: string[]): void {
  if (!isRecord(response)) return;
  for (const c of asArray(response.candidates)) {
    for (const part of asArray(asRecord(asRecord(c)?.content)?.parts)) {
      if (!isRecord(part)) continue;
      const text = asString(part.text);
      if (text) out.push(text);
      const call = asRecord(part.functionCall);
      if (call) {
        const name = asString(call.name);
        if (name) out.push(name);
        if (call.args !== undefined) out.push(JSON.stringify(call.args));
      }
    }
  }
}

function hasFinishReason(response: unknown): boolean {
  return asArray(asRecord(response)?.candidates).some((c) => typeof asRecord(c)?.finishReason === 'string');
}

export class GeminiStreamMeter {
  private readonly reader = new SseReader();
  private readonly maxRetained: number;
  private lastUsageData: Buffer | null = null;
  private retained: Buffer[] = [];
  private retainedBytes = 0;
  private readonly texts = new CompletionTextSample();

  /** A candidate reported its `finishReason`: the upstream finished the answer. */
  done = false;
  /** An error object arrived mid-stream. */
  error: UpstreamErrorFields | null = null;
  events = 0;

  constructor(options: GeminiStreamMeterOptions = {}) {
    this.maxRetained = options.maxRetainedBytes ?? DEFAULT_MAX_RETAINED_BYTES;
  }

  /** The last `usageMetadata` of the stream, normalised, or null when none came. */
  get usage(): Usage | null {
    if (!this.lastUsageData) return null;
    return fromGeminiUsage(asRecord(parseJson(this.lastUsageData.toString('utf8')))?.usageMetadata);
  }

  completionText(): string {
    this.reduceRetained();
    return this.texts.text();
  }

  /** How much a count of `completionText()` is scaled by: only a sample of a long text is kept. */
  completionTextRatio(): number {
    this.reduceRetained();
    return this.texts.ratio();
  }

  /** Reads a chunk; returns it as it is. */
  write(chunk: Buffer): Buffer {
    for (const event of this.reader.push(chunk)) this.read(event);
    return chunk;
  }

  /** The upstream ended: reads an unterminated last event. Returns the bytes held back: none. */
  end(): Buffer {
    for (const event of this.reader.end()) this.read(event);
    return NOTHING_HELD;
  }

  private read(event: SseEvent): void {
    this.events++;
    const data = event.data;
    if (data.indexOf(ERROR_KEY) !== -1) {
      const fields = geminiErrorFromObject(parseJson(data.toString('utf8')));
      if (fields) {
        this.error = fields;
        return;
      }
    }
    if (data.indexOf(USAGE_KEY) !== -1) this.lastUsageData = data;
    if (!this.done && data.indexOf(FINISH_KEY) !== -1)
      this.done = hasFinishReason(parseJson(data.toString('utf8')));
    this.retained.push(data);
    this.retainedBytes += data.length;
    if (this.retainedBytes > this.maxRetained) this.reduceRetained();
  }

  private reduceRetained(): void {
    for (const data of this.retained) geminiResponseText(parseJson(data.toString('utf8')), this.texts.pieces);
    this.retained = [];
    this.retainedBytes = 0;
    this.texts.settle();
  }
}

import { randomUUID } from 'node:crypto';
import { emptyUsage, type Usage } from '../../billing/pricing/usage.js';
import type { GeminiFinishReason, GeminiPart, GeminiResponse } from '../gemini/content-types.js';
import { geminiErrorBody, geminiErrorFromObject } from '../gemini/errors.js';
import { fromGeminiUsage, toGeminiUsageMetadata } from '../gemini/usage.js';
import { errorFromObject } from '../openai/errors.js';
import { fromOpenAiUsage, isMeaningfulUsage, toOpenAiChatUsage } from '../usage.js';
import {
  asArray,
  asNumber,
  asRecord,
  asString,
  isRecord,
  type JsonRecord,
  parseJson,
} from './json-reading.js';
import type { OpenAiChunk, OpenAiChunkDelta, OpenAiFinishReason } from './openai-chat-types.js';
import { geminiFinishToOpenAi, openAiFinishToGemini } from './openai-gemini-response.js';
import { crlfDataEvent, dataEvent, type SseEvent } from './sse-framing.js';
import { SseStreamTranslator } from './stream-translator.js';
import { stableToolCallId } from './tool-call-ids.js';

// Streams between Gemini `streamGenerateContent?alt=sse` and OpenAI chat.completion.chunk events,
// both ways. Gemini streams whole parts (a function call arrives complete, never in fragments) and
// has no end marker: its last event carries `finishReason` and the final `usageMetadata`.

const DONE = 'data: [DONE]\n\n';

// ---------------------------------------------------------------------------------------------
// Gemini events -> OpenAI chunks (client speaks OpenAI, channel speaks Gemini)

export interface GeminiToOpenAiStreamOptions {
  /** The model name the client asked for; default: the upstream's `modelVersion`. */
  model?: string;
  /** The client asked for `stream_options.include_usage`: end with the usage-only chunk. */
  includeUsage?: boolean;
  /** Unix seconds for `created`; default: now. */
  created?: number;
}

interface CandidateState {
  calls: number;
  finished: boolean;
}

export class GeminiToOpenAiStream extends SseStreamTranslator {
  private readonly includeUsage: boolean;
  private readonly created: number;
  private model: string;
  private id = '';
  private seed = '';
  private started = false;
  private readonly candidates = new Map<number, CandidateState>();
  private usageMetadata: unknown = undefined;
  private closed = false;

  constructor(options: GeminiToOpenAiStreamOptions = {}) {
    super();
    this.includeUsage = options.includeUsage ?? false;
    this.created = options.created ?? Math.floor(Date.now() / 1000);
    this.model = options.model ?? '';
  }

  override get usage(): Usage | null {
    return fromGeminiUsage(this.usageMetadata);
  }

  /** Gemini's stream ends by closing: the usage chunk and `[DONE]` follow a finished answer here. */
  protected override atEnd(out: string[]): void {
    if (this.completed && !this.closed) {
      this.closed = true;
      const usage = this.usage;
      if (this.includeUsage && usage) {
        out.push(
          dataEvent({
            id: this.id,
            object: 'chat.completion.chunk',
            created: this.created,
            model: this.model,
            choices: [],
            usage: toOpenAiChatUsage(usage),
          }),
        );
      }
      out.push(DONE);
    }
  }

  override errorEvent(error: { status: number; message: string; type?: string }): Buffer {
    return Buffer.from(
      dataEvent({
        error: { message: error.message, type: error.type ?? 'upstream_error', code: null, param: null },
      }),
    );
  }

  private chunk(index: number, delta: OpenAiChunkDelta, finish: OpenAiFinishReason | null): string {
    const c: OpenAiChunk = {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index, delta, logprobs: null, finish_reason: finish }],
    };
    return dataEvent(c);
  }

  private start(response: JsonRecord): void {
    if (this.started) return;
    this.started = true;
    this.seed = asString(response.responseId) ?? randomUUID();
    this.id = `chatcmpl-${this.seed}`;
    if (!this.model) this.model = asString(response.modelVersion) ?? '';
  }

  private candidate(index: number, out: string[]): CandidateState {
    let state = this.candidates.get(index);
    if (!state) {
      state = { calls: 0, finished: false };
      this.candidates.set(index, state);
      out.push(this.chunk(index, { role: 'assistant', content: '' }, null));
    }
    return state;
  }

  protected override handle(event: SseEvent, out: string[]): void {
    const response = parseJson(event.data.toString('utf8'));
    const failure = geminiErrorFromObject(response);
    if (failure) {
      this.error = failure;
      out.push(dataEvent({ error: failure }));
      return;
    }
    if (!isRecord(response)) return;
    this.start(response);
    if (response.usageMetadata !== undefined) this.usageMetadata = response.usageMetadata;
    asArray(response.candidates).forEach((raw, i) => {
      const c = asRecord(raw);
      if (!c) return;
      const index = asNumber(c.index) ?? i;
      const state = this.candidate(index, out);
      for (const part of asArray(asRecord(c.content)?.parts)) {
        if (isRecord(part)) this.part(index, state, part, out);
      }
      const finish = asString(c.finishReason);
      if (finish && !state.finished) {
        state.finished = true;
        out.push(this.chunk(index, {}, geminiFinishToOpenAi(finish, state.calls > 0)));
        if (index === 0) this.completed = true;
      }
    });
    // A prompt blocked before any candidate: the answer is empty and filtered.
    if (this.candidates.size === 0 && asRecord(response.promptFeedback)?.blockReason !== undefined) {
      this.candidate(0, out).finished = true;
      out.push(this.chunk(0, {}, 'content_filter'));
      this.completed = true;
    }
  }

  private part(index: number, state: CandidateState, part: JsonRecord, out: string[]): void {
    const call = asRecord(part.functionCall);
    if (call) {
      const name = asString(call.name) ?? '';
      const args = JSON.stringify(call.args ?? {});
      const id = asString(call.id) ?? stableToolCallId(`${this.seed}:${index}`, state.calls);
      this.texts.push(name, args);
      out.push(
        this.chunk(
          index,
          { tool_calls: [{ index: state.calls, id, type: 'function', function: { name, arguments: args } }] },
          null,
        ),
      );
      state.calls++;
      return;
    }
    const text = asString(part.text);
    if (!text) return;
    this.texts.push(text);
    out.push(
      this.chunk(index, part.thought === true ? { reasoning_content: text } : { content: text }, null),
    );
  }
}

// ---------------------------------------------------------------------------------------------
// OpenAI chunks -> Gemini events (client speaks Gemini, channel speaks OpenAI)

export interface OpenAiToGeminiStreamOptions {
  /** The model name the client asked for; default: the upstream's. */
  model?: string;
}

interface BufferedCall {
  id: string | undefined;
  name: string;
  arguments: string;
}

export class OpenAiToGeminiStream extends SseStreamTranslator {
  private model: string;
  private responseId = '';
  private started = false;
  /** Tool calls arrive in fragments; Gemini sends a call whole, so they wait for the finish. */
  private calls: BufferedCall[] = [];
  private readonly callByIndex = new Map<number, BufferedCall>();
  private finish: GeminiFinishReason | null = null;
  private doneSeen = false;
  private upstreamUsage: Usage | null = null;

  constructor(options: OpenAiToGeminiStreamOptions = {}) {
    super();
    this.model = options.model ?? '';
  }

  override get usage(): Usage | null {
    return this.upstreamUsage;
  }

  protected override atEnd(out: string[], fallbackUsage: Usage | null): void {
    if (!this.completed && (this.doneSeen || this.finish !== null)) this.close(out, fallbackUsage);
  }

  override errorEvent(error: { status: number; message: string; type?: string }): Buffer {
    return Buffer.from(crlfDataEvent(geminiErrorBody(error)));
  }

  private event(
    parts: GeminiPart[],
    extra: Partial<GeminiResponse> = {},
    finish?: GeminiFinishReason,
  ): string {
    const candidate: GeminiResponse['candidates'][number] = { content: { role: 'model', parts }, index: 0 };
    if (finish) candidate.finishReason = finish;
    const response: GeminiResponse = {
      candidates: [candidate],
      ...extra,
      modelVersion: this.model,
      responseId: this.responseId,
    };
    return crlfDataEvent(response);
  }

  private flushCalls(out: string[]): void {
    if (this.calls.length === 0) return;
    const parts: GeminiPart[] = this.calls.map((call) => {
      const args = parseJson(call.arguments);
      return { functionCall: { name: call.name, args: isRecord(args) ? args : {} } };
    });
    this.calls = [];
    this.callByIndex.clear();
    out.push(this.event(parts));
  }

  private close(out: string[], fallback: Usage | null): void {
    this.flushCalls(out);
    const usage = this.upstreamUsage ?? fallback ?? emptyUsage();
    out.push(
      this.event([{ text: '' }], { usageMetadata: toGeminiUsageMetadata(usage) }, this.finish ?? 'STOP'),
    );
    this.completed = true;
  }

  protected override handle(event: SseEvent, out: string[]): void {
    if (this.completed) return;
    const text = event.data.toString('utf8').trim();
    if (text === '[DONE]') {
      this.doneSeen = true;
      // Without upstream usage the closing event waits for the relay's own count (see end()).
      if (this.upstreamUsage) this.close(out, null);
      return;
    }
    const chunk = asRecord(parseJson(text));
    if (event.event === 'error' || (chunk?.error !== undefined && chunk?.error !== null)) {
      this.error = {
        message: text.slice(0, 500) || 'upstream stream error',
        type: 'upstream_error',
        code: null,
        param: null,
        ...(errorFromObject(chunk) ?? {}),
      };
      out.push(crlfDataEvent(geminiErrorBody({ status: 500, message: this.error.message })));
      return;
    }
    if (!chunk) return;
    if (!this.started) {
      this.started = true;
      this.responseId = (asString(chunk.id) ?? '').replace(/^chatcmpl-/, '');
      if (!this.model) this.model = asString(chunk.model) ?? '';
    }
    if (isRecord(chunk.usage)) {
      const usage = fromOpenAiUsage(chunk.usage);
      if (isMeaningfulUsage(usage)) this.upstreamUsage = usage;
    }
    const choices = asArray(chunk.choices);
    const choice = asRecord(choices.find((c) => asNumber(asRecord(c)?.index) === 0) ?? choices[0]);
    if (!choice) return;
    const delta = asRecord(choice.delta) ?? {};
    const reasoning = asString(delta.reasoning_content) ?? asString(delta.reasoning);
    if (reasoning) {
      this.texts.push(reasoning);
      out.push(this.event([{ text: reasoning, thought: true }]));
    }
    const content = asString(delta.content);
    if (content) {
      this.texts.push(content);
      out.push(this.event([{ text: content }]));
    }
    for (const raw of asArray(delta.tool_calls)) {
      const call = asRecord(raw);
      if (!call) continue;
      const index = asNumber(call.index) ?? 0;
      const fn = asRecord(call.function) ?? {};
      const id = asString(call.id);
      let buffered = this.callByIndex.get(index);
      // Some vendors reuse index 0 for every call; a new id means a new call.
      if (!buffered || (id && buffered.id && id !== buffered.id)) {
        buffered = { id, name: '', arguments: '' };
        this.calls.push(buffered);
        this.callByIndex.set(index, buffered);
      }
      const name = asString(fn.name);
      if (name) {
        buffered.name = name;
        this.texts.push(name);
      }
      const args = asString(fn.arguments);
      if (args) {
        buffered.arguments += args;
        this.texts.push(args);
      }
    }
    const finish = asString(choice.finish_reason);
    if (finish) {
      this.finish = openAiFinishToGemini(finish);
      this.flushCalls(out);
    }
  }
}

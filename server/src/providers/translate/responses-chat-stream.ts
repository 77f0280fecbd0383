import { errorFromObject } from '../openai/errors.js';
import { chunkText } from '../openai/stream-meter.js';
import { fromOpenAiUsage, isMeaningfulUsage, type Usage } from '../usage.js';
import { asArray, asNumber, asRecord, asString, type JsonRecord, parseJson } from './json-reading.js';
import {
  incompleteReasonOf,
  type ResponseShell,
  responseIdFromChat,
  responseObject,
} from './responses-chat.js';
import { namedEvent, type SseEvent } from './sse-framing.js';
import { SseStreamTranslator } from './stream-translator.js';

// chat/completions chunks -> Responses API events, for a Responses client on a chat-only channel.
// Each output item (reasoning summary, assistant message, function call) is opened with
// `response.output_item.added`, filled by its delta events and closed with its `.done` events when
// another item starts or the answer ends; `response.completed` (or `.incomplete`) carries the
// whole Response with the usage.

interface TextItem {
  kind: 'reasoning' | 'message';
  index: number;
  id: string;
  text: string;
}

interface CallItem {
  index: number;
  id: string;
  callId: string;
  name: string;
  arguments: string;
}

export interface ChatToResponsesStreamOptions {
  /** The model name the client asked for. */
  model: string;
  /** The client's request, for the fields a Response echoes. */
  request: JsonRecord;
  /** Unix seconds for `created_at`; default: now. */
  createdAt?: number;
}

export class ChatToResponsesStream extends SseStreamTranslator {
  private readonly shell: ResponseShell;
  private started = false;
  private sequence = 0;
  private suffix = '';
  private readonly output: { index: number; item: JsonRecord }[] = [];
  private open: TextItem | null = null;
  private readonly calls = new Map<number, CallItem>();
  private finish: unknown = null;
  private doneSeen = false;
  private upstreamUsage: Usage | null = null;

  constructor(options: ChatToResponsesStreamOptions) {
    super();
    this.shell = {
      id: '',
      model: options.model,
      createdAt: options.createdAt ?? Math.floor(Date.now() / 1000),
      request: options.request,
    };
  }

  override get usage(): Usage | null {
    return this.upstreamUsage;
  }

  protected override atEnd(out: string[], fallbackUsage: Usage | null): void {
    if (!this.completed && this.error === null && (this.doneSeen || this.finish !== null)) {
      this.close(out, this.upstreamUsage ?? fallbackUsage);
    }
  }

  override errorEvent(error: { status: number; message: string; type?: string }): Buffer {
    return Buffer.from(
      this.event('error', { code: error.type ?? 'upstream_error', message: error.message, param: null }),
    );
  }

  private event(type: string, payload: JsonRecord): string {
    return namedEvent(type, { type, sequence_number: this.sequence++, ...payload });
  }

  private start(chunk: JsonRecord, out: string[]): void {
    if (this.started) return;
    this.started = true;
    this.shell.id = responseIdFromChat(asString(chunk.id) ?? '');
    this.suffix = this.shell.id.slice('resp_'.length);
    const created = asNumber(chunk.created);
    if (created !== undefined) this.shell.createdAt = created;
    const response = responseObject(this.shell, 'in_progress', [], null);
    out.push(this.event('response.created', { response }));
    out.push(this.event('response.in_progress', { response }));
  }

  protected override handle(event: SseEvent, out: string[]): void {
    const text = event.data.toString('utf8');
    if (text === '[DONE]') {
      this.doneSeen = true;
      return;
    }
    const chunk = asRecord(parseJson(text));
    if (!chunk) return;
    if (chunk.error !== undefined) {
      this.error = errorFromObject(chunk) ?? {
        message: 'upstream stream error',
        type: 'upstream_error',
        code: null,
        param: null,
      };
      out.push(this.event('error', { code: this.error.type, message: this.error.message, param: null }));
      return;
    }
    this.start(chunk, out);
    const usage = fromOpenAiUsage(chunk.usage);
    if (isMeaningfulUsage(usage)) this.upstreamUsage = usage;
    chunkText(chunk, this.texts.pieces);
    this.texts.settle();
    const choice = asRecord(asArray(chunk.choices).find((c) => (asNumber(asRecord(c)?.index) ?? 0) === 0));
    if (!choice) return;
    const delta = asRecord(choice.delta) ?? {};
    const reasoning = asString(delta.reasoning_content) ?? asString(delta.reasoning);
    if (reasoning) this.appendText('reasoning', reasoning, out);
    const content = asString(delta.content);
    if (content) this.appendText('message', content, out);
    for (const raw of asArray(delta.tool_calls)) this.appendCall(asRecord(raw) ?? {}, out);
    if (choice.finish_reason !== null && choice.finish_reason !== undefined)
      this.finish = choice.finish_reason;
  }

  private appendText(kind: TextItem['kind'], delta: string, out: string[]): void {
    if (this.open && this.open.kind !== kind) this.closeText(out);
    if (!this.open) {
      const index = this.output.length + this.calls.size;
      const id = `${kind === 'reasoning' ? 'rs' : 'msg'}_${this.suffix}_${index}`;
      this.open = { kind, index, id, text: '' };
      if (kind === 'reasoning') {
        out.push(
          this.event('response.output_item.added', {
            output_index: index,
            item: { type: 'reasoning', id, summary: [] },
          }),
        );
        out.push(
          this.event('response.reasoning_summary_part.added', {
            item_id: id,
            output_index: index,
            summary_index: 0,
            part: { type: 'summary_text', text: '' },
          }),
        );
      } else {
        out.push(
          this.event('response.output_item.added', {
            output_index: index,
            item: { type: 'message', id, status: 'in_progress', role: 'assistant', content: [] },
          }),
        );
        out.push(
          this.event('response.content_part.added', {
            item_id: id,
            output_index: index,
            content_index: 0,
            part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
          }),
        );
      }
    }
    const item = this.open;
    item.text += delta;
    if (kind === 'reasoning') {
      out.push(
        this.event('response.reasoning_summary_text.delta', {
          item_id: item.id,
          output_index: item.index,
          summary_index: 0,
          delta,
        }),
      );
    } else {
      out.push(
        this.event('response.output_text.delta', {
          item_id: item.id,
          output_index: item.index,
          content_index: 0,
          delta,
          logprobs: [],
        }),
      );
    }
  }

  private closeText(out: string[]): void {
    const item = this.open;
    if (!item) return;
    this.open = null;
    let done: JsonRecord;
    if (item.kind === 'reasoning') {
      const part = { type: 'summary_text', text: item.text };
      out.push(
        this.event('response.reasoning_summary_text.done', {
          item_id: item.id,
          output_index: item.index,
          summary_index: 0,
          text: item.text,
        }),
      );
      out.push(
        this.event('response.reasoning_summary_part.done', {
          item_id: item.id,
          output_index: item.index,
          summary_index: 0,
          part,
        }),
      );
      done = { type: 'reasoning', id: item.id, summary: [part] };
    } else {
      const part = { type: 'output_text', text: item.text, annotations: [], logprobs: [] };
      out.push(
        this.event('response.output_text.done', {
          item_id: item.id,
          output_index: item.index,
          content_index: 0,
          text: item.text,
          logprobs: [],
        }),
      );
      out.push(
        this.event('response.content_part.done', {
          item_id: item.id,
          output_index: item.index,
          content_index: 0,
          part,
        }),
      );
      done = { type: 'message', id: item.id, status: 'completed', role: 'assistant', content: [part] };
    }
    this.output.push({ index: item.index, item: done });
    out.push(this.event('response.output_item.done', { output_index: item.index, item: done }));
  }

  private appendCall(raw: JsonRecord, out: string[]): void {
    const key = asNumber(raw.index) ?? 0;
    const fn = asRecord(raw.function) ?? {};
    let call = this.calls.get(key);
    if (!call) {
      this.closeText(out);
      const index = this.output.length + this.calls.size;
      call = {
        index,
        id: `fc_${this.suffix}_${index}`,
        callId: asString(raw.id) ?? `call_${this.suffix}_${key}`,
        name: asString(fn.name) ?? '',
        arguments: '',
      };
      this.calls.set(key, call);
      out.push(
        this.event('response.output_item.added', {
          output_index: index,
          item: {
            type: 'function_call',
            id: call.id,
            call_id: call.callId,
            name: call.name,
            arguments: '',
            status: 'in_progress',
          },
        }),
      );
    }
    const args = asString(fn.arguments);
    if (args) {
      call.arguments += args;
      out.push(
        this.event('response.function_call_arguments.delta', {
          item_id: call.id,
          output_index: call.index,
          delta: args,
        }),
      );
    }
  }

  private close(out: string[], usage: Usage | null): void {
    if (!this.started) this.start({}, out);
    this.closeText(out);
    for (const call of [...this.calls.values()].sort((a, b) => a.index - b.index)) {
      const item = {
        type: 'function_call',
        id: call.id,
        call_id: call.callId,
        name: call.name,
        arguments: call.arguments,
        status: 'completed',
      };
      out.push(
        this.event('response.function_call_arguments.done', {
          item_id: call.id,
          output_index: call.index,
          arguments: call.arguments,
        }),
      );
      out.push(this.event('response.output_item.done', { output_index: call.index, item }));
      this.output.push({ index: call.index, item });
    }
    this.calls.clear();
    const items = [...this.output].sort((a, b) => a.index - b.index).map((o) => o.item);
    const incomplete = incompleteReasonOf(this.finish);
    const response = responseObject(
      this.shell,
      incomplete ? 'incomplete' : 'completed',
      items,
      usage,
      incomplete,
    );
    out.push(this.event(incomplete ? 'response.incomplete' : 'response.completed', { response }));
    this.completed = true;
  }
}

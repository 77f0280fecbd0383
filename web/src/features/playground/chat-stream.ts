import { withBase } from '../../lib/base-path';

// The playground's own client for /v1/chat/completions: fetch with the playground token, the reply
// read as server-sent events so text appears as it is generated.

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  temperature: number;
  stop?: string[];
}

/** Splits an SSE byte stream (already decoded) into the JSON payloads of its `data:` events. */
export class SseParser {
  private buffer = '';
  done = false;

  push(text: string): unknown[] {
    this.buffer += text;
    const out: unknown[] = [];
    for (;;) {
      const end = this.buffer.search(/\r?\n\r?\n/);
      if (end < 0) break;
      const event = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data === '') continue;
      if (data === '[DONE]') {
        this.done = true;
        continue;
      }
      try {
        out.push(JSON.parse(data));
      } catch {
        // A malformed event is skipped; the rest of the reply still counts.
      }
    }
    return out;
  }
}

interface StreamChunk {
  choices?: { delta?: { content?: string | null } }[];
  usage?: ChatUsage | null;
}

async function errorText(res: Response): Promise<string> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as { error?: { message?: string } };
    if (body.error?.message) return body.error.message;
  } catch {
    // Not JSON: the status line says enough.
  }
  return text.trim() || `HTTP ${res.status}`;
}

/** Sends the chat and calls back with each piece of text; resolves with the usage the gateway reported. */
export async function streamChat(
  key: string,
  request: ChatRequest,
  onDelta: (text: string) => void,
  signal?: AbortSignal,
): Promise<ChatUsage | null> {
  const res = await fetch(withBase('/v1/chat/completions'), {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...request, stream: true, stream_options: { include_usage: true } }),
    ...(signal ? { signal } : {}),
  });
  if (!res.ok || !res.body) throw new Error(await errorText(res));
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  let usage: ChatUsage | null = null;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    for (const payload of parser.push(value) as StreamChunk[]) {
      const text = payload.choices?.[0]?.delta?.content;
      if (text) onDelta(text);
      if (payload.usage) usage = payload.usage;
    }
  }
  return usage;
}

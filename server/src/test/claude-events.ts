// The Claude Messages reply and stream events that Bedrock and Vertex relay from the model
// unchanged (they only change the framing around them), for the fakes of both platforms.

export interface ClaudeScenario {
  /** Answer text; default a fixed sentence unless tool calls are given. */
  content?: string;
  toolCalls?: { name: string; input: Record<string, unknown> }[];
  /** `input_tokens`, outside the cache (default 10). */
  inputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** Default: one per text delta. */
  outputTokens?: number;
}

const DEFAULT_CONTENT = 'Hello from the fake Claude platform.';

function words(text: string): string[] {
  return text.split(/(?<=\s)/).filter((w) => w.length > 0);
}

function plan(s: ClaudeScenario) {
  const calls = s.toolCalls ?? [];
  const content = s.content ?? (calls.length ? '' : DEFAULT_CONTENT);
  const pieces = words(content);
  const usage = {
    input_tokens: s.inputTokens ?? 10,
    cache_creation_input_tokens: s.cacheWriteTokens ?? 0,
    cache_read_input_tokens: s.cacheReadTokens ?? 0,
    output_tokens: s.outputTokens ?? pieces.length + calls.length,
  };
  return { calls, content, pieces, usage, stopReason: calls.length ? 'tool_use' : 'end_turn' };
}

export function claudeMessage(id: string, model: string, s: ClaudeScenario): Record<string, unknown> {
  const p = plan(s);
  const content: Record<string, unknown>[] = [];
  if (p.content) content.push({ type: 'text', text: p.content });
  for (const [i, c] of p.calls.entries())
    content.push({ type: 'tool_use', id: `toolu_${id}_${i}`, name: c.name, input: c.input });
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: p.stopReason,
    stop_sequence: null,
    usage: p.usage,
  };
}

export function claudeStreamEvents(id: string, model: string, s: ClaudeScenario): Record<string, unknown>[] {
  const p = plan(s);
  const events: Record<string, unknown>[] = [
    {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...p.usage, output_tokens: 1 },
      },
    },
  ];
  let index = 0;
  if (p.pieces.length) {
    const i = index++;
    events.push({ type: 'content_block_start', index: i, content_block: { type: 'text', text: '' } });
    for (const text of p.pieces)
      events.push({ type: 'content_block_delta', index: i, delta: { type: 'text_delta', text } });
    events.push({ type: 'content_block_stop', index: i });
  }
  p.calls.forEach((c, n) => {
    const i = index++;
    events.push({
      type: 'content_block_start',
      index: i,
      content_block: { type: 'tool_use', id: `toolu_${id}_${n}`, name: c.name, input: {} },
    });
    const json = JSON.stringify(c.input);
    const half = Math.ceil(json.length / 2);
    for (const partial_json of ['', json.slice(0, half), json.slice(half)])
      events.push({
        type: 'content_block_delta',
        index: i,
        delta: { type: 'input_json_delta', partial_json },
      });
    events.push({ type: 'content_block_stop', index: i });
  });
  events.push({
    type: 'message_delta',
    delta: { stop_reason: p.stopReason, stop_sequence: null },
    usage: { output_tokens: p.usage.output_tokens },
  });
  events.push({ type: 'message_stop' });
  return events;
}

import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../billing/pricing/usage.js';
import { chatToResponsesResponse, responsesToChatRequest } from './responses-chat.js';
import { ChatToResponsesStream } from './responses-chat-stream.js';
import { TranslationError } from './translation-error.js';

describe('responsesToChatRequest', () => {
  it('maps instructions, items, images, tools, formats and limits', () => {
    const chat = responsesToChatRequest(
      {
        model: 'x',
        instructions: 'Be brief.',
        input: [
          { role: 'developer', content: 'Use metric units.' },
          {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_text', text: 'What is here?' },
              { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'low' },
            ],
          },
          { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' },
          { type: 'function_call', call_id: 'call_1', name: 'look', arguments: '{"a":1}' },
          { type: 'function_call', call_id: 'call_2', name: 'look', arguments: '{"a":2}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'one' },
          { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'two' }] },
          { role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] },
        ],
        tools: [
          {
            type: 'function',
            name: 'look',
            description: 'Looks',
            parameters: { type: 'object' },
            strict: true,
          },
        ],
        tool_choice: { type: 'function', name: 'look' },
        parallel_tool_calls: false,
        max_output_tokens: 300,
        temperature: 0.3,
        reasoning: { effort: 'low' },
        text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } },
        stream: true,
      },
      { model: 'up-model' },
    );
    expect(chat).toEqual({
      model: 'up-model',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: 'Use metric units.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is here?' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'look', arguments: '{"a":1}' } },
            { id: 'call_2', type: 'function', function: { name: 'look', arguments: '{"a":2}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'one' },
        { role: 'tool', tool_call_id: 'call_2', content: 'two' },
        { role: 'assistant', content: 'Done.' },
      ],
      max_tokens: 300,
      temperature: 0.3,
      tools: [
        {
          type: 'function',
          function: { name: 'look', description: 'Looks', parameters: { type: 'object' } },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'look' } },
      parallel_tool_calls: false,
      reasoning_effort: 'low',
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: { type: 'object' }, strict: true },
      },
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('refuses what needs server-side state or hosted tools', () => {
    expect(() =>
      responsesToChatRequest({ input: 'hi', previous_response_id: 'resp_1' }, { model: 'x' }),
    ).toThrow(TranslationError);
    expect(() =>
      responsesToChatRequest({ input: 'hi', tools: [{ type: 'web_search' }] }, { model: 'x' }),
    ).toThrow(/web_search/);
    expect(() =>
      responsesToChatRequest(
        { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'f' }] }] },
        { model: 'x' },
      ),
    ).toThrow(/file ids/);
  });
});

describe('chatToResponsesResponse', () => {
  it('turns a chat completion into a Response with items and usage', () => {
    const response = chatToResponsesResponse(
      {
        id: 'chatcmpl-abc',
        created: 1700000000,
        choices: [
          {
            message: {
              role: 'assistant',
              content: 'Let me look.',
              reasoning_content: 'Thinking.',
              tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'look', arguments: '{}' } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: {
          prompt_tokens: 10,
          completion_tokens: 5,
          prompt_tokens_details: { cached_tokens: 4 },
          completion_tokens_details: { reasoning_tokens: 2 },
        },
      },
      { temperature: 0.5 },
      { model: 'asked' },
    );
    expect(response).toMatchObject({
      id: 'resp_abc',
      object: 'response',
      created_at: 1700000000,
      status: 'completed',
      model: 'asked',
      temperature: 0.5,
      output: [
        { type: 'reasoning', id: 'rs_abc', summary: [{ type: 'summary_text', text: 'Thinking.' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Let me look.' }] },
        { type: 'function_call', call_id: 'call_9', name: 'look', arguments: '{}', status: 'completed' },
      ],
      usage: {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 4 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 2 },
        total_tokens: 15,
      },
    });
  });

  it('marks a cut-off answer incomplete', () => {
    const response = chatToResponsesResponse(
      { id: 'chatcmpl-1', choices: [{ message: { content: 'Partial' }, finish_reason: 'length' }] },
      {},
      { model: 'm' },
    );
    expect(response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
  });
});

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-s1', object: 'chat.completion.chunk', created: 1700000001, model: 'up', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

const CHAT_STREAM = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ reasoning_content: 'Think ' }),
  chunk({ reasoning_content: 'hard.' }),
  chunk({ content: 'Héllo ' }),
  chunk({ content: '世界' }),
  chunk({
    tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '' } }],
  }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"x":' } }] }),
  chunk({
    tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'g', arguments: '{}' } }],
  }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
  chunk({}, 'tool_calls'),
  `data: ${JSON.stringify({ id: 'chatcmpl-s1', choices: [], usage: { prompt_tokens: 7, completion_tokens: 9, completion_tokens_details: { reasoning_tokens: 3 } } })}\n\n`,
  'data: [DONE]\n\n',
].join('');

function events(bytes: string): { event: string; data: Record<string, unknown> }[] {
  return bytes
    .split('\n\n')
    .filter((b) => b.trim())
    .map((b) => {
      const [e, d] = b.split('\n');
      return { event: e!.slice('event: '.length), data: JSON.parse(d!.slice('data: '.length)) };
    });
}

describe('ChatToResponsesStream', () => {
  const bytes = Buffer.from(CHAT_STREAM);
  const run = (cut: number) => {
    const t = new ChatToResponsesStream({ model: 'asked', request: {}, createdAt: 1 });
    const out = [t.write(bytes.subarray(0, cut)), t.write(bytes.subarray(cut)), t.end()];
    return { t, text: Buffer.concat(out).toString('utf8') };
  };

  it('writes the same events at any split and closes every item with the usage', () => {
    const whole = run(bytes.length).text;
    for (let cut = 1; cut < bytes.length; cut += 13) expect(run(cut).text, `cut ${cut}`).toBe(whole);
    const { t } = run(bytes.length);
    expect(t.completed).toBe(true);
    expect(t.usage).toMatchObject({ inputTokens: 7, outputTokens: 9, reasoningTokens: 3 });
    const list = events(whole);
    expect(list.map((e) => e.data.sequence_number)).toEqual(list.map((_, i) => i));
    expect(list.every((e) => e.event === e.data.type)).toBe(true);
    expect(list.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const completed = list.at(-1)!.data.response as Record<string, unknown>;
    expect(completed).toMatchObject({
      id: 'resp_s1',
      status: 'completed',
      model: 'asked',
      output: [
        { type: 'reasoning', summary: [{ text: 'Think hard.' }] },
        { type: 'message', content: [{ type: 'output_text', text: 'Héllo 世界' }] },
        { type: 'function_call', call_id: 'call_a', name: 'f', arguments: '{"x":1}' },
        { type: 'function_call', call_id: 'call_b', name: 'g', arguments: '{}' },
      ],
      usage: { input_tokens: 7, output_tokens: 9, output_tokens_details: { reasoning_tokens: 3 } },
    });
  });

  it('closes with the fallback usage when the upstream reported none', () => {
    const t = new ChatToResponsesStream({ model: 'm', request: {} });
    t.write(Buffer.from(chunk({ content: 'Hi' }) + chunk({}, 'length')));
    const out = events(
      t.end({ ...emptyUsage(), inputTokens: 3, outputTokens: 1, estimated: true }).toString('utf8'),
    );
    expect(out.at(-1)).toMatchObject({
      event: 'response.incomplete',
      data: { response: { status: 'incomplete', usage: { input_tokens: 3, output_tokens: 1 } } },
    });
  });

  it('turns an upstream error into an error event and leaves the stream unfinished', () => {
    const t = new ChatToResponsesStream({ model: 'm', request: {} });
    const first = t.write(Buffer.from(chunk({ content: 'Hi' })));
    const err = t.write(
      Buffer.from(`data: ${JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } })}\n\n`),
    );
    expect(events(err.toString('utf8'))[0]).toMatchObject({
      event: 'error',
      data: { type: 'error', code: 'server_error', message: 'overloaded' },
    });
    expect(first.length).toBeGreaterThan(0);
    expect(t.end().length).toBe(0);
    expect(t.completed).toBe(false);
    expect(t.error?.message).toBe('overloaded');
  });
});

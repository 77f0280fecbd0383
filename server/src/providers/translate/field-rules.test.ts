import { describe, expect, it } from 'vitest';
import { openAiToAnthropicRequest, refuseAnthropicFieldsForOpenAi } from './openai-anthropic-request.js';
import { anthropicToOpenAiResponse } from './openai-anthropic-response.js';
import { AnthropicToOpenAiStream } from './openai-anthropic-stream.js';
import { openAiToGeminiRequest, refuseGeminiFieldsForOpenAi } from './openai-gemini-request.js';
import { refuseResponsesFieldsForChat } from './responses-chat.js';
import { TranslationError } from './translation-error.js';

// Every translator either carries a field or refuses it naming the field (docs/compatibility.md).

const messages = [{ role: 'user', content: 'hi' }];

function refusal(work: () => unknown): TranslationError | undefined {
  try {
    work();
    return undefined;
  } catch (err) {
    if (err instanceof TranslationError) return err;
    throw err;
  }
}

describe('field rules of each translator', () => {
  it('OpenAI -> Anthropic: refuses what Anthropic cannot honour, passes defaults, refuses unknown fields', () => {
    const to = (extra: Record<string, unknown>) =>
      refusal(() => openAiToAnthropicRequest({ model: 'm', messages, ...extra }, { model: 'm' }));
    for (const [field, value] of [
      ['n', 2],
      ['seed', 1],
      ['frequency_penalty', 0.1],
      ['logprobs', true],
      ['audio', { voice: 'alloy' }],
      ['modalities', ['text', 'audio']],
      ['store', true],
      ['made_up_field', 1],
    ] as const) {
      expect(to({ [field]: value })?.param, field).toBe(field);
    }
    for (const [field, value] of [
      ['n', 1],
      ['frequency_penalty', 0],
      ['logprobs', false],
      ['modalities', ['text']],
      ['store', false],
      ['metadata', { a: 'b' }],
      ['stream_options', { include_usage: true }],
      ['max_tokens', null],
    ] as const) {
      expect(to({ [field]: value }), field).toBeUndefined();
    }
    expect(
      to({ response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'array' } } } })
        ?.param,
    ).toBe('response_format');
    expect(
      to({
        response_format: { type: 'json_object' },
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      })?.param,
    ).toBe('response_format');
    const out = openAiToAnthropicRequest({ model: 'm', messages, top_k: 5 }, { model: 'm' });
    expect(out.top_k).toBe(5);
  });

  it('OpenAI -> Gemini: maps n, seed, penalties and top_k; refuses log-probabilities and audio', () => {
    const out = openAiToGeminiRequest(
      { model: 'g', messages, n: 2, seed: 3, presence_penalty: 0.5, top_k: 4 },
      { model: 'g' },
    );
    expect(out.generationConfig).toMatchObject({ candidateCount: 2, seed: 3, presencePenalty: 0.5, topK: 4 });
    for (const field of ['logprobs', 'audio', 'parallel_tool_calls']) {
      const value = field === 'logprobs' ? true : field === 'audio' ? {} : false;
      expect(refusal(() => openAiToGeminiRequest({ messages, [field]: value }, { model: 'g' }))?.param).toBe(
        field,
      );
    }
  });

  it('Anthropic, Gemini and Responses requests bound for another protocol refuse what it cannot do', () => {
    expect(refusal(() => refuseAnthropicFieldsForOpenAi({ model: 'c', messages, top_k: 3 }))?.param).toBe(
      'top_k',
    );
    expect(
      refusal(() => refuseAnthropicFieldsForOpenAi({ model: 'c', messages, max_tokens: 9, thinking: {} })),
    ).toBe(undefined);
    expect(
      refusal(() => refuseGeminiFieldsForOpenAi({ contents: [], generation_config: { top_k: 3 } }))?.param,
    ).toBe('topK');
    expect(refusal(() => refuseGeminiFieldsForOpenAi({ contents: [], cachedContent: 'c/1' }))?.param).toBe(
      'cachedContent',
    );
    expect(
      refusal(() =>
        refuseGeminiFieldsForOpenAi({
          contents: [],
          generationConfig: { responseMimeType: 'application/json' },
        }),
      ),
    ).toBeUndefined();
    expect(refusal(() => refuseResponsesFieldsForChat({ input: 'x', background: true }))?.param).toBe(
      'background',
    );
    expect(
      refusal(() => refuseResponsesFieldsForChat({ input: 'x', store: false, include: [] })),
    ).toBeUndefined();
  });
});

describe('structured output through a forced tool', () => {
  const reply = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'c',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'json_output', input: { a: 1 } }],
    stop_reason: 'tool_use',
    usage: { input_tokens: 3, output_tokens: 4 },
  };

  it('turns the tool input into the message text, finishing with stop', () => {
    const out = anthropicToOpenAiResponse(reply, { structuredTool: 'json_output' });
    expect(out.choices[0]?.message.content).toBe('{"a":1}');
    expect(out.choices[0]?.message.tool_calls).toBeUndefined();
    expect(out.choices[0]?.finish_reason).toBe('stop');
    // Without the option a tool call stays a tool call.
    expect(anthropicToOpenAiResponse(reply).choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('streams the tool input fragments as content, whatever the chunking', () => {
    const events = [
      [
        'message_start',
        { type: 'message_start', message: { id: 'msg_1', model: 'c', usage: { input_tokens: 3 } } },
      ],
      [
        'content_block_start',
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 't', name: 'json_output', input: {} },
        },
      ],
      [
        'content_block_delta',
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"a":' } },
      ],
      [
        'content_block_delta',
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '1}' } },
      ],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      [
        'message_delta',
        { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 4 } },
      ],
      ['message_stop', { type: 'message_stop' }],
    ] as const;
    const wire = Buffer.from(events.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join(''));
    const t = new AnthropicToOpenAiStream({ structuredTool: 'json_output' });
    let out = '';
    for (let i = 0; i < wire.length; i += 7) out += t.write(wire.subarray(i, i + 7)).toString();
    out += t.end().toString();
    const chunks = out
      .split('\n\n')
      .filter((l) => l.startsWith('data: {'))
      .map((l) => JSON.parse(l.slice(6)));
    const text = chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join('');
    expect(text).toBe('{"a":1}');
    expect(chunks.some((c) => c.choices?.[0]?.delta?.tool_calls)).toBe(false);
    expect(chunks.map((c) => c.choices?.[0]?.finish_reason).filter(Boolean)).toEqual(['stop']);
  });
});

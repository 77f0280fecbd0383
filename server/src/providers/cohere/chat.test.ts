import { describe, expect, it } from 'vitest';
import { TranslationError } from '../translate/translation-error.js';
import { cohereFinishToOpenAi, cohereToOpenAiResponse, openAiToCohereChat } from './chat.js';

describe('OpenAI -> Cohere chat v2', () => {
  it('maps messages, images, tool calls and results, sampling and tools', () => {
    const out = openAiToCohereChat(
      {
        model: 'gpt',
        messages: [
          { role: 'system', content: 'Be brief.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is here?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AAA' } },
            ],
          },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'look', arguments: '{"x":1}' } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'a cat' },
        ],
        max_tokens: 50,
        temperature: 0.2,
        top_p: 0.9,
        stop: 'END',
        seed: 7,
        tools: [
          {
            type: 'function',
            function: { name: 'look', description: 'Look', parameters: { type: 'object', properties: {} } },
          },
        ],
        tool_choice: 'required',
        response_format: { type: 'json_schema', json_schema: { name: 's', schema: { type: 'object' } } },
        stream: true,
      },
      'command-a-03-2025',
    );
    expect(out).toEqual({
      model: 'command-a-03-2025',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is here?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAA' } },
          ],
        },
        {
          role: 'assistant',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'look', arguments: '{"x":1}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'a cat' },
      ],
      max_tokens: 50,
      temperature: 0.2,
      p: 0.9,
      seed: 7,
      stop_sequences: ['END'],
      tool_choice: 'REQUIRED',
      tools: [
        {
          type: 'function',
          function: { name: 'look', description: 'Look', parameters: { type: 'object', properties: {} } },
        },
      ],
      response_format: { type: 'json_object', json_schema: { type: 'object' } },
      stream: true,
    });
  });

  it('narrows the tools to a named tool choice', () => {
    const out = openAiToCohereChat(
      {
        messages: [{ role: 'user', content: 'x' }],
        tools: [
          { type: 'function', function: { name: 'a' } },
          { type: 'function', function: { name: 'b' } },
        ],
        tool_choice: { type: 'function', function: { name: 'b' } },
      },
      'm',
    );
    expect(out.tools).toEqual([
      { type: 'function', function: { name: 'b', parameters: { type: 'object', properties: {} } } },
    ]);
    expect(out.tool_choice).toBe('REQUIRED');
  });

  it('refuses what Cohere cannot take', () => {
    expect(() => openAiToCohereChat({ messages: [] }, 'm')).toThrow(TranslationError);
    expect(() => openAiToCohereChat({ messages: [{ role: 'user', content: 'x' }], n: 2 }, 'm')).toThrow(
      /n must be 1/,
    );
    expect(() =>
      openAiToCohereChat(
        { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }] },
        'm',
      ),
    ).toThrow(/input_audio/);
  });
});

describe('Cohere chat v2 -> OpenAI', () => {
  it('maps text, thinking, tool plan, tool calls, finish reason and token usage', () => {
    const r = cohereToOpenAiResponse(
      {
        id: 'abc',
        finish_reason: 'TOOL_CALL',
        message: {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm ' },
            { type: 'text', text: 'Calling.' },
          ],
          tool_plan: 'use look',
          tool_calls: [{ id: 'c9', type: 'function', function: { name: 'look', arguments: '{}' } }],
        },
        usage: {
          billed_units: { input_tokens: 5, output_tokens: 3 },
          tokens: { input_tokens: 205, output_tokens: 4 },
        },
      },
      { model: 'command-a', created: 1 },
    );
    expect(r).toMatchObject({
      id: 'chatcmpl-abc',
      model: 'command-a',
      created: 1,
      choices: [
        {
          finish_reason: 'tool_calls',
          message: {
            content: 'Calling.',
            reasoning_content: 'hmm use look',
            tool_calls: [{ id: 'c9', type: 'function', function: { name: 'look', arguments: '{}' } }],
          },
        },
      ],
      usage: { prompt_tokens: 205, completion_tokens: 4, total_tokens: 209 },
    });
  });

  it('maps every finish reason', () => {
    expect(
      ['COMPLETE', 'STOP_SEQUENCE', 'MAX_TOKENS', 'TOOL_CALL', 'ERROR_TOXIC', 'ERROR_LIMIT', 'ERROR'].map(
        cohereFinishToOpenAi,
      ),
    ).toEqual(['stop', 'stop', 'length', 'tool_calls', 'content_filter', 'length', 'stop']);
  });
});

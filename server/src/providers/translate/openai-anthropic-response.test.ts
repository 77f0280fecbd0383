import { describe, expect, it } from 'vitest';
import {
  anthropicStopToFinish,
  anthropicToOpenAiResponse,
  finishToAnthropicStop,
  openAiToAnthropicResponse,
} from './openai-anthropic.js';

describe('anthropicToOpenAiResponse', () => {
  it('turns text, thinking and tool_use into content, reasoning_content and tool_calls', () => {
    const out = anthropicToOpenAiResponse(
      {
        id: 'msg_01XYZ',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [
          { type: 'thinking', thinking: 'User wants weather.', signature: 'EqQBCkgIARAB' },
          { type: 'text', text: 'Checking ' },
          { type: 'text', text: 'now.' },
          { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris', days: 2 } },
        ],
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: {
          input_tokens: 20,
          cache_read_input_tokens: 1000,
          cache_creation_input_tokens: 30,
          output_tokens: 55,
        },
      },
      { model: 'claude-sonnet-4-5', created: 1700000000 },
    );
    expect(out).toEqual({
      id: 'chatcmpl-01XYZ',
      object: 'chat.completion',
      created: 1700000000,
      model: 'claude-sonnet-4-5',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Checking now.',
            refusal: null,
            reasoning_content: 'User wants weather.',
            tool_calls: [
              {
                id: 'toolu_01',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Paris","days":2}' },
              },
            ],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: {
        prompt_tokens: 1050,
        completion_tokens: 55,
        total_tokens: 1105,
        prompt_tokens_details: { cached_tokens: 1000, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
      },
    });
  });

  it('gives null content to a reply of tool calls only', () => {
    const out = anthropicToOpenAiResponse({
      id: 'msg_1',
      content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }],
      stop_reason: 'tool_use',
    });
    expect(out.choices[0]?.message.content).toBeNull();
    expect(out.usage).toBeUndefined();
  });
});

describe('openAiToAnthropicResponse', () => {
  it('turns a chat.completion into a Message with thinking, text, tool_use and Anthropic usage', () => {
    const out = openAiToAnthropicResponse(
      {
        id: 'chatcmpl-abc',
        object: 'chat.completion',
        created: 1,
        model: 'deepseek-reasoner',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: 'Let me look.',
              reasoning_content: 'Think first.',
              tool_calls: [
                { id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"q":"cats"}' } },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: {
          prompt_tokens: 500,
          completion_tokens: 80,
          total_tokens: 580,
          prompt_tokens_details: { cached_tokens: 400 },
          completion_tokens_details: { reasoning_tokens: 60 },
        },
      },
      { model: 'claude-via-deepseek' },
    );
    expect(out).toEqual({
      id: 'msg_abc',
      type: 'message',
      role: 'assistant',
      model: 'claude-via-deepseek',
      content: [
        { type: 'thinking', thinking: 'Think first.', signature: '' },
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'call_1', name: 'search', input: { q: 'cats' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: {
        input_tokens: 100,
        output_tokens: 80,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 400,
        output_tokens_details: { thinking_tokens: 60 },
      },
    });
  });

  it('writes zero usage when the upstream sent none', () => {
    const out = openAiToAnthropicResponse({
      id: 'x',
      choices: [{ message: { content: 'hi' }, finish_reason: 'length' }],
    });
    expect(out.stop_reason).toBe('max_tokens');
    expect(out.usage).toEqual({
      input_tokens: 0,
      output_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
  });
});

describe('stop reasons', () => {
  it('map both ways', () => {
    expect(
      [
        'end_turn',
        'stop_sequence',
        'max_tokens',
        'tool_use',
        'pause_turn',
        'refusal',
        'model_context_window_exceeded',
      ].map(anthropicStopToFinish),
    ).toEqual(['stop', 'stop', 'length', 'tool_calls', 'stop', 'content_filter', 'length']);
    expect(
      ['stop', 'length', 'tool_calls', 'function_call', 'content_filter', null].map(finishToAnthropicStop),
    ).toEqual(['end_turn', 'max_tokens', 'tool_use', 'tool_use', 'refusal', 'end_turn']);
  });
});

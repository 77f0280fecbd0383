import { describe, expect, it } from 'vitest';
import {
  geminiFinishToOpenAi,
  geminiToOpenAiResponse,
  openAiFinishToGemini,
  openAiToGeminiResponse,
} from './openai-gemini.js';

const geminiReply = {
  candidates: [
    {
      content: {
        role: 'model',
        parts: [
          { text: 'The user wants two lookups.', thought: true },
          { text: 'Looking up ', thoughtSignature: 'CiIBVKhc7t' },
          { text: 'both.' },
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
          { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } },
        ],
      },
      finishReason: 'STOP',
      index: 0,
    },
  ],
  usageMetadata: {
    promptTokenCount: 1200,
    candidatesTokenCount: 40,
    thoughtsTokenCount: 150,
    cachedContentTokenCount: 1024,
    totalTokenCount: 1390,
  },
  modelVersion: 'gemini-2.5-flash',
  responseId: 'resp-abc',
};

describe('geminiToOpenAiResponse', () => {
  it('turns parts into content, reasoning_content and tool_calls with stable ids', () => {
    const out = geminiToOpenAiResponse(geminiReply, { created: 1700000000 });
    const calls = out.choices[0]?.message.tool_calls ?? [];
    expect(out).toEqual({
      id: 'chatcmpl-resp-abc',
      object: 'chat.completion',
      created: 1700000000,
      model: 'gemini-2.5-flash',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Looking up both.',
            refusal: null,
            reasoning_content: 'The user wants two lookups.',
            tool_calls: [
              {
                id: calls[0]?.id,
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
              },
              {
                id: calls[1]?.id,
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
              },
            ],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: {
        prompt_tokens: 1200,
        completion_tokens: 190,
        total_tokens: 1390,
        prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 150, audio_tokens: 0 },
      },
    });
    expect(calls[0]?.id).not.toBe(calls[1]?.id);
    expect(geminiToOpenAiResponse(geminiReply).choices[0]?.message.tool_calls?.map((c) => c.id)).toEqual(
      calls.map((c) => c.id),
    );
    expect(out).not.toHaveProperty('thoughtSignature');
    expect(JSON.stringify(out)).not.toContain('CiIBVKhc7t');
  });

  it('answers a blocked prompt with an empty filtered choice, and maps finish reasons', () => {
    const blocked = geminiToOpenAiResponse({
      promptFeedback: { blockReason: 'SAFETY' },
      usageMetadata: { promptTokenCount: 8, totalTokenCount: 8 },
    });
    expect(blocked.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: '', refusal: null },
        logprobs: null,
        finish_reason: 'content_filter',
      },
    ]);
    expect(blocked.usage).toMatchObject({ prompt_tokens: 8, completion_tokens: 0 });
    expect(
      [
        'STOP',
        'MAX_TOKENS',
        'SAFETY',
        'RECITATION',
        'PROHIBITED_CONTENT',
        'MALFORMED_FUNCTION_CALL',
        'OTHER',
      ].map((r) => geminiFinishToOpenAi(r, false)),
    ).toEqual(['stop', 'length', 'content_filter', 'content_filter', 'content_filter', 'stop', 'stop']);
    expect(geminiFinishToOpenAi('STOP', true)).toBe('tool_calls');
    expect(['stop', 'length', 'tool_calls', 'content_filter'].map(openAiFinishToGemini)).toEqual([
      'STOP',
      'MAX_TOKENS',
      'STOP',
      'SAFETY',
    ]);
  });
});

describe('openAiToGeminiResponse', () => {
  it('turns a chat.completion into candidates with thought, text and functionCall parts', () => {
    const out = openAiToGeminiResponse(
      {
        id: 'chatcmpl-xyz',
        object: 'chat.completion',
        model: 'gpt-4o',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: 'On it.',
              reasoning_content: 'Plan.',
              tool_calls: [
                { id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } },
              ],
            },
            finish_reason: 'tool_calls',
          },
          { index: 1, message: { role: 'assistant', content: 'Cut' }, finish_reason: 'length' },
        ],
        usage: {
          prompt_tokens: 100,
          completion_tokens: 30,
          total_tokens: 130,
          prompt_tokens_details: { cached_tokens: 64 },
          completion_tokens_details: { reasoning_tokens: 10 },
        },
      },
      { model: 'gemini-via-openai' },
    );
    expect(out).toEqual({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'Plan.', thought: true },
              { text: 'On it.' },
              { functionCall: { name: 'search', args: { q: 'x' } } },
            ],
          },
          finishReason: 'STOP',
          index: 0,
        },
        { content: { role: 'model', parts: [{ text: 'Cut' }] }, finishReason: 'MAX_TOKENS', index: 1 },
      ],
      usageMetadata: {
        promptTokenCount: 100,
        candidatesTokenCount: 20,
        thoughtsTokenCount: 10,
        cachedContentTokenCount: 64,
        totalTokenCount: 130,
      },
      modelVersion: 'gemini-via-openai',
      responseId: 'xyz',
    });
  });
});

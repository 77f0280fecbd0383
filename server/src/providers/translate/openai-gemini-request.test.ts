import { describe, expect, it } from 'vitest';
import { fromGeminiSchema, toGeminiSchema } from './gemini-schema.js';
import { geminiToOpenAiRequest, openAiToGeminiRequest, SKIP_THOUGHT_SIGNATURE } from './openai-gemini.js';
import { TranslationError } from './translation-error.js';

const PNG_B64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name' },
        unit: { type: ['string', 'null'], enum: ['C', 'F'] },
      },
      required: ['city'],
      additionalProperties: false,
    },
    strict: true,
  },
};

const openAiConversation = {
  model: 'gpt-4o',
  messages: [
    { role: 'system', content: 'You are terse.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Weather in Paris and Oslo? Also this:' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_B64}` } },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.webp' } },
        { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
      ],
    },
    {
      role: 'assistant',
      content: 'Checking.',
      reasoning_content: 'hidden',
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"city":"Oslo"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_a', content: '{"temp":18}' },
    { role: 'tool', tool_call_id: 'call_b', content: '14:02' },
    { role: 'user', content: 'Compare.' },
  ],
  tools: [
    weatherTool,
    { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } },
  ],
  tool_choice: 'auto',
  temperature: 0.4,
  top_p: 0.9,
  max_tokens: 500,
  stop: 'END',
  n: 2,
  seed: 7,
  response_format: { type: 'json_object' },
};

describe('openAiToGeminiRequest', () => {
  it('translates system, images, audio, calls and results (named through the call ids)', () => {
    const out = openAiToGeminiRequest(openAiConversation, { model: 'gemini-2.5-flash' });
    expect(out.systemInstruction).toEqual({ parts: [{ text: 'You are terse.' }] });
    expect(out.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'Weather in Paris and Oslo? Also this:' },
          { inlineData: { mimeType: 'image/png', data: PNG_B64 } },
          { fileData: { mimeType: 'image/webp', fileUri: 'https://example.com/cat.webp' } },
          { inlineData: { mimeType: 'audio/wav', data: 'UklGRg==' } },
        ],
      },
      {
        role: 'model',
        parts: [
          { text: 'Checking.' },
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
          { functionCall: { name: 'get_time', args: { city: 'Oslo' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { temp: 18 } } },
          { functionResponse: { name: 'get_time', response: { content: '14:02' } } },
          { text: 'Compare.' },
        ],
      },
    ]);
    expect(out.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Weather for a city',
            parameters: {
              type: 'object',
              properties: {
                city: { type: 'string', description: 'City name' },
                unit: { type: 'string', nullable: true, enum: ['C', 'F'] },
              },
              required: ['city'],
            },
          },
          // Gemini refuses an object schema without properties.
          { name: 'get_time' },
        ],
      },
    ]);
    expect(out.toolConfig).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(out.generationConfig).toEqual({
      temperature: 0.4,
      topP: 0.9,
      maxOutputTokens: 500,
      stopSequences: ['END'],
      candidateCount: 2,
      seed: 7,
      responseMimeType: 'application/json',
    });
  });

  it('signs replayed calls with the sentinel for Gemini 3 only', () => {
    const g3 = openAiToGeminiRequest(openAiConversation, { model: 'gemini-3-pro-preview' });
    expect(g3.contents[1]?.parts[1]).toEqual({
      functionCall: { name: 'get_weather', args: { city: 'Paris' } },
      thoughtSignature: SKIP_THOUGHT_SIGNATURE,
    });
    expect(g3.contents[1]?.parts[2]).not.toHaveProperty('thoughtSignature');
    const g25 = openAiToGeminiRequest(openAiConversation, { model: 'gemini-2.5-flash' });
    expect(JSON.stringify(g25)).not.toContain(SKIP_THOUGHT_SIGNATURE);
  });

  it('maps tool choices, json_schema output and reasoning effort per model generation', () => {
    const base = { messages: [{ role: 'user', content: 'x' }], tools: [weatherTool] };
    const choice = (tool_choice: unknown) =>
      openAiToGeminiRequest({ ...base, tool_choice }, { model: 'gemini-2.5-flash' }).toolConfig;
    expect(choice('required')).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    expect(choice('none')).toEqual({ functionCallingConfig: { mode: 'NONE' } });
    expect(choice({ type: 'function', function: { name: 'get_weather' } })).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] },
    });

    const schema = openAiToGeminiRequest(
      {
        ...base,
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'x',
            schema: { type: 'object', properties: { n: { type: 'integer', const: 3 } } },
          },
        },
      },
      { model: 'gemini-2.5-flash' },
    ).generationConfig;
    expect(schema).toEqual({
      responseMimeType: 'application/json',
      responseSchema: { type: 'object', properties: { n: { type: 'integer' } } },
    });

    const thinking = (effort: string, model: string) =>
      openAiToGeminiRequest({ ...base, reasoning_effort: effort }, { model }).generationConfig
        ?.thinkingConfig;
    expect(thinking('high', 'gemini-2.5-flash')).toEqual({ includeThoughts: true, thinkingBudget: 24576 });
    expect(thinking('low', 'gemini-2.5-pro')).toEqual({ includeThoughts: true, thinkingBudget: 1024 });
    expect(thinking('none', 'gemini-2.5-flash')).toEqual({ thinkingBudget: 0 });
    expect(thinking('none', 'gemini-2.5-pro')).toBeUndefined();
    expect(thinking('high', 'gemini-3-pro-preview')).toEqual({
      includeThoughts: true,
      thinkingLevel: 'high',
    });
    expect(thinking('medium', 'gemini-3-pro-preview')).toEqual({ includeThoughts: true });
  });

  it('refuses file references Gemini cannot fetch', () => {
    const body = { messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }] };
    expect(() => openAiToGeminiRequest(body, { model: 'gemini-2.5-flash' })).toThrow(TranslationError);
  });
});

/** A Gemini REST body as clients send it, partly in snake_case as Google's own curl samples do. */
const geminiConversation = {
  system_instruction: { parts: [{ text: 'You are a helpful bot.' }, { text: 'Be brief.' }] },
  contents: [
    {
      role: 'user',
      parts: [
        { text: 'What is this?' },
        { inline_data: { mime_type: 'image/jpeg', data: '/9j/4AAQ' } },
        { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
        { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/a.png' } },
      ],
    },
    {
      role: 'model',
      parts: [
        { text: 'Thinking about it', thought: true },
        { text: 'Let me look it up.', thoughtSignature: 'c2ln' },
        { functionCall: { name: 'search', args: { q: 'cat' } } },
        { functionCall: { name: 'search', args: { q: 'dog' } } },
        { functionCall: { name: 'lookup', args: {} } },
      ],
    },
    {
      role: 'user',
      parts: [
        { functionResponse: { name: 'lookup', response: { result: 'found' } } },
        { functionResponse: { name: 'search', response: { hits: 3 } } },
        { functionResponse: { name: 'search', response: { hits: 5 } } },
      ],
    },
    { role: 'user', parts: [{ text: 'Summarise.' }] },
  ],
  tools: [
    {
      functionDeclarations: [
        {
          name: 'search',
          description: 'Search',
          parameters: {
            type: 'OBJECT',
            properties: { q: { type: 'STRING', nullable: true } },
            required: ['q'],
          },
        },
        { name: 'lookup', parametersJsonSchema: { type: 'object', properties: {} } },
      ],
    },
    { googleSearch: {} },
  ],
  tool_config: { function_calling_config: { mode: 'ANY', allowed_function_names: ['search'] } },
  generationConfig: {
    temperature: 0.2,
    topP: 0.8,
    maxOutputTokens: 256,
    stopSequences: ['STOP!'],
    candidateCount: 1,
    responseMimeType: 'application/json',
    responseSchema: { type: 'OBJECT', properties: { answer: { type: 'STRING' } } },
    thinkingConfig: { thinkingBudget: 8000, includeThoughts: true },
  },
  safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
};

describe('geminiToOpenAiRequest', () => {
  it('translates contents with generated call ids and pairs each response with its call by name', () => {
    const out = geminiToOpenAiRequest(geminiConversation, { model: 'gpt-4o', stream: true });
    const assistant = out.messages[2];
    const ids = (assistant?.tool_calls ?? []).map((c) => c.id);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^call_[A-Za-z0-9_-]{24}$/);
    expect(out.messages).toEqual([
      { role: 'system', content: 'You are a helpful bot.\nBe brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
          {
            type: 'file',
            file: { filename: 'document.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' },
          },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Let me look it up.',
        tool_calls: [
          { id: ids[0], type: 'function', function: { name: 'search', arguments: '{"q":"cat"}' } },
          { id: ids[1], type: 'function', function: { name: 'search', arguments: '{"q":"dog"}' } },
          { id: ids[2], type: 'function', function: { name: 'lookup', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: ids[2], content: 'found' },
      { role: 'tool', tool_call_id: ids[0], content: '{"hits":3}' },
      { role: 'tool', tool_call_id: ids[1], content: '{"hits":5}' },
      { role: 'user', content: 'Summarise.' },
    ]);
    expect(out.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'search',
          description: 'Search',
          parameters: { type: 'object', properties: { q: { type: ['string', 'null'] } }, required: ['q'] },
        },
      },
      { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } },
    ]);
    expect(out).toMatchObject({
      tool_choice: { type: 'function', function: { name: 'search' } },
      temperature: 0.2,
      top_p: 0.8,
      max_tokens: 256,
      stop: ['STOP!'],
      reasoning_effort: 'medium',
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'response',
          schema: { type: 'object', properties: { answer: { type: 'string' } } },
        },
      },
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(out).not.toHaveProperty('n');
    // The same body always gives the same ids.
    expect(geminiToOpenAiRequest(geminiConversation, { model: 'gpt-4o', stream: false }).messages).toEqual(
      out.messages,
    );
  });

  it('uses Gemini call ids when present and maps thinking levels and tool modes', () => {
    const out = geminiToOpenAiRequest(
      {
        contents: [
          { role: 'user', parts: [{ text: 'go' }] },
          { role: 'model', parts: [{ functionCall: { id: 'fc-1', name: 'f', args: {} } }] },
          {
            role: 'user',
            parts: [{ functionResponse: { id: 'fc-1', name: 'f', response: { output: 'ok' } } }],
          },
        ],
        tools: [{ function_declarations: [{ name: 'f' }] }],
        toolConfig: { functionCallingConfig: { mode: 'NONE' } },
        generationConfig: { thinkingConfig: { thinkingLevel: 'HIGH' } },
      },
      { model: 'gpt-4o', stream: false, maxTokensField: 'max_completion_tokens' },
    );
    expect(out.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'fc-1', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'fc-1', content: 'ok' },
    ]);
    expect(out.tool_choice).toBe('none');
    expect(out.reasoning_effort).toBe('high');
    expect(out).not.toHaveProperty('stream');
  });

  it('round-trips an OpenAI tool conversation through Gemini (ids regenerated, pairing kept)', () => {
    const gemini = openAiToGeminiRequest(openAiConversation, { model: 'gemini-2.5-flash' });
    const back = geminiToOpenAiRequest(gemini as unknown as Record<string, unknown>, {
      model: 'gpt-4o',
      stream: false,
    });
    const calls = back.messages[2]?.tool_calls ?? [];
    expect(calls.map((c) => c.function)).toEqual([
      { name: 'get_weather', arguments: '{"city":"Paris"}' },
      { name: 'get_time', arguments: '{"city":"Oslo"}' },
    ]);
    expect(back.messages.slice(3, 5)).toEqual([
      { role: 'tool', tool_call_id: calls[0]?.id, content: '{"temp":18}' },
      { role: 'tool', tool_call_id: calls[1]?.id, content: '14:02' },
    ]);
  });

  it('refuses audio OpenAI cannot take and files it cannot fetch', () => {
    const audio = {
      contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'audio/ogg', data: 'AA' } }] }],
    };
    expect(() => geminiToOpenAiRequest(audio, { model: 'm', stream: false })).toThrow(TranslationError);
    const file = {
      contents: [
        {
          role: 'user',
          parts: [{ fileData: { fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc' } }],
        },
      ],
    };
    expect(() => geminiToOpenAiRequest(file, { model: 'm', stream: false })).toThrow(TranslationError);
  });
});

describe('Gemini schemas', () => {
  it('bring JSON Schema into the Gemini subset and back', () => {
    expect(
      toGeminiSchema({
        type: 'object',
        properties: {
          tags: { type: 'array', items: { type: 'string', format: 'uri', $comment: 'x' } },
          kind: { anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }] },
          level: { type: 'integer', enum: [1, 2] },
        },
        additionalProperties: false,
        definitions: {},
      }),
    ).toEqual({
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string', format: 'uri' } },
        kind: { nullable: true, type: 'string', enum: ['a', 'b'] },
        level: { type: 'integer' },
      },
    });
    expect(fromGeminiSchema({ type: 'ARRAY', items: { type: 'NUMBER' }, propertyOrdering: ['x'] })).toEqual({
      type: 'array',
      items: { type: 'number' },
    });
  });
});

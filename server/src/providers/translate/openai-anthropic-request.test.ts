import { describe, expect, it } from 'vitest';
import { anthropicToOpenAiRequest, openAiToAnthropicRequest } from './openai-anthropic.js';
import { TranslationError } from './translation-error.js';

const PNG_B64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const options = { model: 'claude-sonnet-4-5', defaultMaxTokens: { default: 8192, 'claude-opus-4-1': 32000 } };

/** An OpenAI tool conversation: system prompts, an image, parallel calls, their results, a follow-up. */
const toolConversation = {
  model: 'gpt-4o',
  messages: [
    { role: 'system', content: 'You are terse.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Weather here and there?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_B64}` } },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'high' } },
      ],
    },
    {
      role: 'assistant',
      content: null,
      reasoning_content: 'I should call the tool twice.',
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_a', content: '18C sunny' },
    { role: 'tool', tool_call_id: 'call_b', content: [{ type: 'text', text: '2C snow' }] },
    { role: 'developer', content: 'Answer in one line.' },
    { role: 'user', content: 'Thanks, and compare.' },
  ],
  tools: [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Weather for a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    },
  ],
  tool_choice: 'auto',
  parallel_tool_calls: false,
};

describe('openAiToAnthropicRequest', () => {
  it('refuses a response_format type it does not know with a 400 that names it, whatever its JSON shape', () => {
    const refusal = (type: unknown) => {
      try {
        openAiToAnthropicRequest(
          { model: 'claude', messages: [{ role: 'user', content: 'hi' }], response_format: { type } },
          options,
        );
      } catch (e) {
        return e;
      }
      return undefined;
    };
    // An object without a prototype has no string form: String() of it throws (the fuzz suite's find).
    const e = refusal([Object.create(null)]);
    expect(e).toBeInstanceOf(TranslationError);
    expect((e as TranslationError).message).toBe('response_format type an array is not supported');
    expect((refusal('xml') as TranslationError).message).toBe('response_format type xml is not supported');
    expect((refusal({}) as TranslationError).message).toBe('response_format type an object is not supported');
    expect((refusal('x'.repeat(300)) as TranslationError).message).toHaveLength(
      'response_format type  is not supported'.length + 103,
    );
  });

  it('moves system prompts to the top, images to image blocks, calls and results to tool blocks', () => {
    const out = openAiToAnthropicRequest(toolConversation, options);
    expect(out.model).toBe('claude-sonnet-4-5');
    expect(out.system).toEqual([
      { type: 'text', text: 'You are terse.' },
      { type: 'text', text: 'Answer in one line.' },
    ]);
    expect(out.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather here and there?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_B64 } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
        ],
      },
      {
        role: 'assistant',
        // Reasoning from another protocol has no signature Anthropic would accept: it is dropped.
        content: [
          { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call_b', name: 'get_weather', input: { city: 'Oslo' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_a', content: '18C sunny' },
          { type: 'tool_result', tool_use_id: 'call_b', content: '2C snow' },
          { type: 'text', text: 'Thanks, and compare.' },
        ],
      },
    ]);
    expect(out.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Weather for a city',
        input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ]);
    expect(out.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
  });

  it('takes max_tokens from the request, else from ClaudeDefaultMaxTokens by model', () => {
    const messages = [{ role: 'user', content: 'hi' }];
    expect(openAiToAnthropicRequest({ messages }, options).max_tokens).toBe(8192);
    expect(openAiToAnthropicRequest({ messages }, { ...options, model: 'claude-opus-4-1' }).max_tokens).toBe(
      32000,
    );
    expect(openAiToAnthropicRequest({ messages }, { model: 'x' }).max_tokens).toBe(8192);
    expect(openAiToAnthropicRequest({ messages, max_tokens: 100 }, options).max_tokens).toBe(100);
    expect(
      openAiToAnthropicRequest({ messages, max_tokens: 100, max_completion_tokens: 300 }, options).max_tokens,
    ).toBe(300);
  });

  it('maps sampling, stop sequences, user, stream and tool choices', () => {
    const out = openAiToAnthropicRequest(
      {
        messages: [{ role: 'user', content: 'hi' }],
        temperature: 1.7,
        top_p: 0.9,
        stop: ['END', '  ', '\n\n'],
        user: 'user-42',
        stream: true,
        stream_options: { include_usage: true },
        tools: toolConversation.tools,
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
      },
      options,
    );
    expect(out).toMatchObject({
      temperature: 1,
      top_p: 0.9,
      stop_sequences: ['END'],
      metadata: { user_id: 'user-42' },
      stream: true,
      tool_choice: { type: 'tool', name: 'get_weather' },
    });
    expect(out).not.toHaveProperty('stream_options');
    const req = (tool_choice: unknown) =>
      openAiToAnthropicRequest(
        { messages: [{ role: 'user', content: 'x' }], tools: toolConversation.tools, tool_choice },
        options,
      ).tool_choice;
    expect(req('required')).toEqual({ type: 'any' });
    expect(req('none')).toEqual({ type: 'none' });
    expect(req(undefined)).toBeUndefined();
  });

  it('turns reasoning effort into a thinking budget and drops what thinking forbids', () => {
    const base = {
      messages: [{ role: 'user', content: 'Prove it.' }],
      max_tokens: 10000,
      temperature: 0.2,
      top_p: 0.5,
    };
    const high = openAiToAnthropicRequest({ ...base, reasoning_effort: 'high' }, options);
    expect(high.thinking).toEqual({ type: 'enabled', budget_tokens: 8000 });
    expect(high).not.toHaveProperty('temperature');
    expect(high).not.toHaveProperty('top_p');
    expect(
      openAiToAnthropicRequest({ ...base, reasoning_effort: 'low' }, options).thinking?.budget_tokens,
    ).toBe(2000);
    expect(
      openAiToAnthropicRequest({ ...base, reasoning_effort: 'minimal' }, options).thinking?.budget_tokens,
    ).toBe(1024);
    expect(
      openAiToAnthropicRequest({ ...base, reasoning_effort: 'high' }, { ...options, thinkingShare: 0.5 })
        .thinking,
    ).toEqual({ type: 'enabled', budget_tokens: 5000 });
    expect(openAiToAnthropicRequest({ ...base, reasoning_effort: 'none' }, options).thinking).toBeUndefined();
    expect(
      openAiToAnthropicRequest({ ...base, max_tokens: 1000, reasoning_effort: 'high' }, options).thinking,
    ).toBeUndefined();
  });

  it('leaves thinking off where Anthropic would refuse it: forced tools and a tool loop in progress', () => {
    const forced = openAiToAnthropicRequest(
      {
        ...toolConversation,
        messages: [{ role: 'user', content: 'x' }],
        tool_choice: 'required',
        reasoning_effort: 'high',
      },
      options,
    );
    expect(forced.thinking).toBeUndefined();
    const loop = openAiToAnthropicRequest(
      { ...toolConversation, messages: toolConversation.messages.slice(0, 5), reasoning_effort: 'high' },
      options,
    );
    expect(loop.messages.at(-1)?.content[0]).toMatchObject({ type: 'tool_result' });
    expect(loop.thinking).toBeUndefined();
    // Text after the results still answers the tool calls; a new user turn after an answer does not.
    expect(
      openAiToAnthropicRequest({ ...toolConversation, reasoning_effort: 'high' }, options).thinking,
    ).toBeUndefined();
    const answered = [
      ...toolConversation.messages,
      { role: 'assistant', content: 'Paris is warmer.' },
      { role: 'user', content: 'Why?' },
    ];
    expect(
      openAiToAnthropicRequest({ ...toolConversation, messages: answered, reasoning_effort: 'high' }, options)
        .thinking,
    ).toEqual({ type: 'enabled', budget_tokens: 6553 });
  });

  it('sends PDFs and text files as documents and refuses what Anthropic cannot take', () => {
    const out = openAiToAnthropicRequest(
      {
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'file',
                file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' },
              },
              { type: 'file', file: { file_data: 'data:text/plain,hello%20world' } },
            ],
          },
        ],
      },
      options,
    );
    expect(out.messages[0]?.content).toEqual([
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'hello world' } },
    ]);
    const audio = {
      messages: [
        { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AA', format: 'wav' } }] },
      ],
    };
    expect(() => openAiToAnthropicRequest(audio, options)).toThrow(TranslationError);
    const fileId = { messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }] };
    expect(() => openAiToAnthropicRequest(fileId, options)).toThrow(TranslationError);
  });

  it('keeps arguments that are not a JSON object, and pairs legacy function calls with their results', () => {
    const out = openAiToAnthropicRequest(
      {
        messages: [
          { role: 'user', content: 'go' },
          {
            role: 'assistant',
            content: 'Calling.',
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: 'not json' } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: '' },
          { role: 'assistant', content: null, function_call: { name: 'legacy', arguments: '{"x":1}' } },
          { role: 'function', name: 'legacy', content: 'done' },
        ],
      },
      options,
    );
    expect(out.messages[1]?.content).toEqual([
      { type: 'text', text: 'Calling.' },
      { type: 'tool_use', id: 'c1', name: 'f', input: { arguments: 'not json' } },
    ]);
    expect(out.messages[2]?.content[0]).toEqual({ type: 'tool_result', tool_use_id: 'c1' });
    const legacyCall = out.messages[3]?.content[0];
    expect(legacyCall).toMatchObject({ type: 'tool_use', name: 'legacy', input: { x: 1 } });
    expect(out.messages[4]?.content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: (legacyCall as { id: string }).id,
      content: 'done',
    });
  });
});

/** An Anthropic tool conversation as a Claude client (e.g. a coding agent) sends it. */
const anthropicConversation = {
  model: 'claude-sonnet-4-5',
  max_tokens: 4096,
  system: [
    { type: 'text', text: 'You are a coding agent.' },
    { type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } },
  ],
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in this picture and file?' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_B64 } },
        { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
        {
          type: 'document',
          source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
          title: 'spec.pdf',
        },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Need to read the file.', signature: 'EqQBCkgIAR...' },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.txt' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'file body' }] },
        { type: 'text', text: 'Go on.' },
      ],
    },
  ],
  tools: [
    {
      name: 'read_file',
      description: 'Reads a file',
      input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
    { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
  ],
  tool_choice: { type: 'any', disable_parallel_tool_use: true },
  thinking: { type: 'enabled', budget_tokens: 10000 },
  stop_sequences: ['</done>'],
  temperature: 0.3,
  metadata: { user_id: 'u-1' },
  stream: true,
};

describe('anthropicToOpenAiRequest', () => {
  it('translates system, images, documents, tool calls and results, and drops signed thinking', () => {
    const out = anthropicToOpenAiRequest(anthropicConversation, { model: 'gpt-4o' });
    expect(out.messages).toEqual([
      { role: 'system', content: 'You are a coding agent.\nBe brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture and file?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_B64}` } },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          { type: 'file', file: { filename: 'spec.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Let me check.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'file body' },
      { role: 'user', content: 'Go on.' },
    ]);
    expect(out.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'read_file',
          description: 'Reads a file',
          parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        },
      },
    ]);
    expect(out).toMatchObject({
      model: 'gpt-4o',
      max_tokens: 4096,
      tool_choice: 'required',
      parallel_tool_calls: false,
      reasoning_effort: 'medium',
      stop: ['</done>'],
      temperature: 0.3,
      user: 'u-1',
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('follows the options: max token field, no usage request, no reasoning effort', () => {
    const out = anthropicToOpenAiRequest(anthropicConversation, {
      model: 'o3',
      maxTokensField: 'max_completion_tokens',
      includeUsage: false,
      reasoningEffort: false,
    });
    expect(out.max_completion_tokens).toBe(4096);
    expect(out).not.toHaveProperty('max_tokens');
    expect(out).not.toHaveProperty('stream_options');
    expect(out).not.toHaveProperty('reasoning_effort');
  });

  it('maps thinking budgets, adaptive effort and disabled thinking', () => {
    const effort = (thinking: unknown, output_config?: unknown) =>
      anthropicToOpenAiRequest({ messages: [], max_tokens: 1, thinking, output_config }, { model: 'm' })
        .reasoning_effort;
    expect(effort({ type: 'enabled', budget_tokens: 1024 })).toBe('low');
    expect(effort({ type: 'enabled', budget_tokens: 32000 })).toBe('high');
    expect(effort({ type: 'adaptive' }, { effort: 'low' })).toBe('low');
    expect(effort({ type: 'adaptive' }, { effort: 'max' })).toBe('high');
    expect(effort({ type: 'adaptive' })).toBeUndefined();
    expect(effort({ type: 'disabled' })).toBeUndefined();
  });

  it('moves images a tool returned into a user message and marks failed tools', () => {
    const out = anthropicToOpenAiRequest(
      {
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 't1',
                content: [
                  { type: 'text', text: 'screenshot:' },
                  { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'AAAA' } },
                ],
              },
              { type: 'tool_result', tool_use_id: 't2', content: 'permission denied', is_error: true },
            ],
          },
        ],
        tool_choice: { type: 'tool', name: 'x' },
      },
      { model: 'm' },
    );
    expect(out.messages).toEqual([
      { role: 'tool', tool_call_id: 't1', content: 'screenshot:' },
      { role: 'tool', tool_call_id: 't2', content: 'Error: permission denied' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AAAA' } }] },
    ]);
  });

  it('round-trips an OpenAI tool conversation through Anthropic and back', () => {
    const anthropic = openAiToAnthropicRequest(toolConversation, options);
    const back = anthropicToOpenAiRequest(anthropic as unknown as Record<string, unknown>, {
      model: 'gpt-4o',
    });
    const userTurn = toolConversation.messages[1] as { role: string; content: unknown[] };
    expect(back.messages).toEqual([
      { role: 'system', content: 'You are terse.\nAnswer in one line.' },
      { ...userTurn, content: userTurn.content.map(stripDetail) },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_a',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
          { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '18C sunny' },
      { role: 'tool', tool_call_id: 'call_b', content: '2C snow' },
      { role: 'user', content: 'Thanks, and compare.' },
    ]);
    expect(back.tools).toEqual(toolConversation.tools);
    expect(back.parallel_tool_calls).toBe(false);
  });
});

/** Anthropic has no image detail level, so it does not survive a round trip. */
function stripDetail(part: unknown): unknown {
  const p = part as { type: string; image_url?: { url: string } };
  return p.type === 'image_url' && p.image_url
    ? { type: 'image_url', image_url: { url: p.image_url.url } }
    : part;
}

import { beforeAll, describe, expect, it } from 'vitest';
import {
  countChatMessages,
  countChatRequest,
  countInput,
  countText,
  countTools,
  ESTIMATING_TOKENIZER,
  encodingForModel,
  IMAGE_TOKENS,
  TokenCounter,
  type Tokenizer,
} from './token-counter.js';

// The example conversation of OpenAI's cookbook "How to count tokens with tiktoken"; the API
// reports 129 prompt tokens for it on cl100k models (gpt-4, gpt-3.5-turbo) and 124 on gpt-4o.
const COOKBOOK = [
  {
    role: 'system',
    content:
      'You are a helpful, pattern-following assistant that translates corporate jargon into plain English.',
  },
  { role: 'system', name: 'example_user', content: 'New synergies will help drive top-line growth.' },
  {
    role: 'system',
    name: 'example_assistant',
    content: 'Things working well together will increase revenue.',
  },
  {
    role: 'system',
    name: 'example_user',
    content:
      "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage.",
  },
  {
    role: 'system',
    name: 'example_assistant',
    content: "Let's talk later when we're less busy about how to do better.",
  },
  {
    role: 'user',
    content: "This late pivot means we don't have time to boil the ocean for the client deliverable.",
  },
];

describe('encodingForModel', () => {
  it('picks o200k for the gpt-4o generation and later, cl100k otherwise', () => {
    for (const m of [
      'gpt-4o',
      'gpt-4o-mini-2024-07-18',
      'chatgpt-4o-latest',
      'gpt-4.1-nano',
      'gpt-5',
      'o1',
      'o3-mini',
      'o4-mini',
      'openai/gpt-4o',
      'GPT-4O',
    ]) {
      expect(encodingForModel(m), m).toBe('o200k_base');
    }
    for (const m of [
      'gpt-4',
      'gpt-4-turbo',
      'gpt-3.5-turbo',
      'text-embedding-3-small',
      'claude-3-5-sonnet',
      'deepseek-chat',
      'qwen-max',
      '',
    ]) {
      expect(encodingForModel(m), m).toBe('cl100k_base');
    }
  });
});

describe('counting', () => {
  const counter = new TokenCounter();
  let cl: Tokenizer;
  let o200k: Tokenizer;
  beforeAll(async () => {
    cl = await counter.tokenizer('gpt-4');
    o200k = await counter.tokenizer('gpt-4o');
  });

  it('loads each encoding once per counter', async () => {
    expect(cl.encoding).toBe('cl100k_base');
    expect(o200k.encoding).toBe('o200k_base');
    expect(await counter.tokenizer('gpt-3.5-turbo')).toBe(cl);
    expect(await counter.tokenizer('o3')).toBe(o200k);
  });

  it('counts text as tiktoken does', () => {
    expect(countText(cl, 'tiktoken is great!')).toBe(6);
    expect(countText(cl, 'hello world')).toBe(2);
    expect(countText(o200k, 'tiktoken is great!')).toBe(6);
    expect(countText(cl, '')).toBe(0);
    // Special-token markers in user text are text, not a reason to fail.
    expect(countText(cl, 'a <|endoftext|> b')).toBeGreaterThan(3);
  });

  it('matches the cookbook chat counts', () => {
    expect(countChatMessages(cl, COOKBOOK)).toBe(129);
    expect(countChatMessages(o200k, COOKBOOK)).toBe(124);
  });

  it('applies the per-message, per-name and priming overheads', () => {
    const one = countText(cl, 'user') + countText(cl, 'hello world');
    expect(countChatMessages(cl, [{ role: 'user', content: 'hello world' }])).toBe(3 + one + 3);
    expect(countChatMessages(cl, [{ role: 'user', name: 'bob', content: 'hello world' }])).toBe(
      3 + one + countText(cl, 'bob') + 1 + 3,
    );
    expect(countChatMessages(cl, [])).toBe(3);
    expect(countChatMessages(cl, 'not messages')).toBe(0);
  });

  it('counts text parts and estimates images by detail', () => {
    const parts = [
      { type: 'text', text: 'hello world' },
      { type: 'image_url', image_url: { url: 'https://x/cat.png', detail: 'low' } },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'high' } },
      { type: 'image_url', image_url: { url: 'https://x/dog.png' } },
      { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
    ];
    const expected =
      3 + countText(cl, 'user') + 2 + IMAGE_TOKENS.low + IMAGE_TOKENS.high + IMAGE_TOKENS.auto + 3;
    expect(countChatMessages(cl, [{ role: 'user', content: parts }])).toBe(expected);
    expect(IMAGE_TOKENS).toEqual({ low: 85, high: 765, auto: 765 });
  });

  it('counts tool calls, tool results and tool definitions', () => {
    const messages = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '18C' },
    ];
    const expected =
      3 +
      countText(cl, 'assistant') +
      countText(cl, 'get_weather') +
      countText(cl, '{"city":"Paris"}') +
      3 +
      countText(cl, 'tool') +
      countText(cl, 'call_1') +
      countText(cl, '18C') +
      3;
    expect(countChatMessages(cl, messages)).toBe(expected);
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
    expect(countTools(cl, tools)).toBe(countText(cl, JSON.stringify(tools[0]?.function)));
    expect(countChatRequest(cl, { messages, tools })).toBe(expected + countTools(cl, tools));
  });

  it('counts embeddings and completions inputs of every shape', () => {
    expect(countInput(cl, 'hello world')).toBe(2);
    expect(countInput(cl, ['hello world', 'tiktoken is great!'])).toBe(8);
    expect(countInput(cl, [15339, 1917])).toBe(2);
    expect(
      countInput(cl, [
        [15339, 1917],
        [1, 2, 3],
      ]),
    ).toBe(5);
    expect(countInput(cl, undefined)).toBe(0);
  });
});

describe('the reserve estimate', () => {
  it('takes a third of the UTF-8 bytes, rounded up', () => {
    expect(ESTIMATING_TOKENIZER.count('abcdef')).toBe(2);
    expect(ESTIMATING_TOKENIZER.count('abcdefg')).toBe(3);
    // Three bytes a character: about one token each, as real CJK text runs.
    expect(ESTIMATING_TOKENIZER.count('你好世界')).toBe(4);
  });

  it('errs high against the real count for an English conversation', async () => {
    const real = countChatMessages(await new TokenCounter().tokenizer('gpt-4o'), COOKBOOK);
    const estimate = countChatMessages(ESTIMATING_TOKENIZER, COOKBOOK);
    expect(real).toBe(124);
    expect(estimate).toBeGreaterThan(real);
    expect(estimate).toBeLessThan(real * 2);
  });
});

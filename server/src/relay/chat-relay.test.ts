import { describe, expect, it } from 'vitest';
import type { Services } from '../services.js';
import { translateChatRequest } from './chat-relay.js';

// The per-vendor adjustments of a chat body the gateway translated for an OpenAI-protocol channel.

const s = {
  options: { current: { ClaudeDefaultMaxTokens: { default: 8192 }, ClaudeBudgetTokensPercentage: 0.8 } },
} as unknown as Services;

const channel = (type: number) => ({ type, baseUrl: '', key: 'k', other: '' });

const pivot = {
  model: 'asked',
  messages: [{ role: 'user', content: 'hi' }],
  max_tokens: 100,
  reasoning_effort: 'high',
  stream: true,
  stream_options: { include_usage: true },
};

describe('translateChatRequest for OpenAI-protocol channels', () => {
  it('gives OpenAI max_completion_tokens and keeps the effort and the usage request', () => {
    expect(translateChatRequest(s, 'openai', pivot, 'gpt-5', channel(1))).toEqual({
      model: 'gpt-5',
      messages: pivot.messages,
      max_completion_tokens: 100,
      reasoning_effort: 'high',
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('leaves out what a stricter vendor would refuse', () => {
    expect(translateChatRequest(s, 'openai', pivot, 'mistral-large', channel(30))).toEqual({
      model: 'mistral-large',
      messages: pivot.messages,
      max_tokens: 100,
      stream: true,
    });
  });

  it('builds Anthropic bodies with the Claude options', () => {
    const { stream_options: _, ...rest } = pivot;
    const body = translateChatRequest(
      s,
      'anthropic',
      { ...rest, max_tokens: undefined },
      'claude-x',
      channel(14),
    );
    expect(body).toMatchObject({ model: 'claude-x', max_tokens: 8192, thinking: { type: 'enabled' } });
  });
});

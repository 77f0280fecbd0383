import { describe, expect, it } from 'vitest';
import {
  chatCompletionEvents,
  chatCompletionJson,
  chatRequestBody,
  countContentChunks,
  STREAM_CHUNKS,
} from './canned-replies.js';

describe('canned replies', () => {
  it('streams 50 content chunks, a finish chunk, a usage chunk and [DONE], each a complete event', () => {
    const events = chatCompletionEvents('gpt-4o-mini');
    expect(events).toHaveLength(STREAM_CHUNKS + 3);
    expect(events.at(-1)).toBe('data: [DONE]\n\n');
    for (const e of events.slice(0, -1)) {
      expect(e.startsWith('data: ') && e.endsWith('\n\n')).toBe(true);
      JSON.parse(e.slice(6));
    }
    const usage = JSON.parse(events.at(-2)!.slice(6)) as {
      choices: unknown[];
      usage: { completion_tokens: number };
    };
    expect(usage.choices).toEqual([]);
    expect(usage.usage.completion_tokens).toBe(STREAM_CHUNKS);
    expect(countContentChunks(events.join(''))).toBe(STREAM_CHUNKS);
  });

  it('answers a whole completion with usage, in the OpenAI shape', () => {
    const body = JSON.parse(chatCompletionJson('m')) as { object: string; usage: { total_tokens: number } };
    expect(body.object).toBe('chat.completion');
    expect(body.usage.total_tokens).toBeGreaterThan(STREAM_CHUNKS);
  });

  it('asks for a stream only when told to, and never contains a $ (nginx would read a variable)', () => {
    expect(JSON.parse(chatRequestBody('m', true))).toMatchObject({ model: 'm', stream: true });
    expect(JSON.parse(chatRequestBody('m', false))).not.toHaveProperty('stream');
    expect(chatCompletionEvents('m').join('')).not.toContain('$');
  });
});

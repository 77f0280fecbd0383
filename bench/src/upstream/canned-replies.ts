// What the fake upstream answers and what the load generator sends: OpenAI chat completions in
// their real wire format (a JSON document, or server-sent events with a usage chunk at the end).

/** Content chunks in every streamed reply (the "upstream sends 50 chunks"). */
export const STREAM_CHUNKS = 50;

const CREATED = 1_700_000_000;
const PROMPT_TOKENS = 31;
const WORDS = [
  'Connection',
  ' pooling',
  ' keeps',
  ' sockets',
  ' open',
  ' between',
  ' requests,',
  ' so',
  ' each',
  ' call',
];

function word(i: number): string {
  return WORDS[i % WORDS.length] as string;
}

function usage(completionTokens: number) {
  return {
    prompt_tokens: PROMPT_TOKENS,
    completion_tokens: completionTokens,
    total_tokens: PROMPT_TOKENS + completionTokens,
  };
}

/** The body a client sends: a short system and user message, the way chat clients do. */
export function chatRequestBody(model: string, stream: boolean): string {
  return JSON.stringify({
    model,
    messages: [
      { role: 'system', content: 'You are a concise assistant for a network operations team.' },
      {
        role: 'user',
        content: 'Explain in two sentences why an HTTP proxy should keep upstream connections alive.',
      },
    ],
    max_tokens: 256,
    temperature: 0.2,
    ...(stream ? { stream: true } : {}),
  });
}

/** A non-streamed chat completion with usage, about 1 KiB. */
export function chatCompletionJson(model: string): string {
  let content = '';
  for (let i = 0; i < STREAM_CHUNKS; i++) content += word(i);
  return JSON.stringify({
    id: 'chatcmpl-bench0000000000000000000000',
    object: 'chat.completion',
    created: CREATED,
    model,
    system_fingerprint: 'fp_bench',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: usage(STREAM_CHUNKS),
  });
}

function event(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/**
 * The events of a streamed chat completion, in order: `chunks` content chunks (the first also
 * carries the role), a finish chunk, the usage chunk (`choices: []`, sent as OpenAI does when
 * `stream_options.include_usage` is on) and `[DONE]`.
 */
export function chatCompletionEvents(model: string, chunks = STREAM_CHUNKS): string[] {
  const base = {
    id: 'chatcmpl-bench0000000000000000000000',
    object: 'chat.completion.chunk',
    created: CREATED,
    model,
  };
  const events: string[] = [];
  for (let i = 0; i < chunks; i++) {
    const delta = i === 0 ? { role: 'assistant', content: word(i) } : { content: word(i) };
    events.push(event({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: null }] }));
  }
  events.push(event({ ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }] }));
  events.push(event({ ...base, choices: [], usage: usage(chunks) }));
  events.push('data: [DONE]\n\n');
  return events;
}

/** Counts the content chunks in a received event stream (usage, finish and [DONE] events excluded). */
export function countContentChunks(text: string): number {
  let n = 0;
  let at = text.indexOf('"content":');
  while (at !== -1) {
    n++;
    at = text.indexOf('"content":', at + 10);
  }
  return n;
}

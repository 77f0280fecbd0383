/**
 * The one usage shape every provider adapter reports, whatever the upstream calls its fields
 * (OpenAI `prompt_tokens_details`, Anthropic `cache_read_input_tokens`, Gemini
 * `cachedContentTokenCount`, ...). Pricing reads only this, so a new provider never touches
 * quota-math.ts.
 *
 * Counting rules every adapter must follow:
 * - `inputTokens` is EVERY prompt token: plain text plus the cached-read, cache-write, audio and
 *   image ones. Anthropic reports `input_tokens` without its cache reads and writes, so its adapter
 *   adds them in; OpenAI's `prompt_tokens` already includes them.
 * - `outputTokens` is EVERY completion token: visible text plus reasoning, audio and image ones.
 *   Gemini reports `thoughtsTokenCount` beside `candidatesTokenCount`, so its adapter adds them.
 * - The kind fields are disjoint parts of those totals: a prompt token is counted in at most one of
 *   `cachedReadTokens`, `cacheWriteTokens`, `inputAudioTokens`, `inputImageTokens`; a completion
 *   token in at most one of `reasoningTokens`, `outputAudioTokens`, `outputImageTokens`. What is
 *   left over is text. (A cached audio token is reported as cached: the cache discount is the
 *   larger effect.)
 * - All counts are non-negative integers; 0 when the upstream did not say.
 */
export interface Usage {
  /** All prompt tokens, including every input-side kind below. */
  inputTokens: number;
  /** All completion tokens, including every output-side kind below. */
  outputTokens: number;
  /** Prompt tokens served from the provider's prompt cache (OpenAI `cached_tokens`, Anthropic cache reads). */
  cachedReadTokens: number;
  /** Prompt tokens written into the provider's prompt cache (Anthropic `cache_creation_input_tokens`). */
  cacheWriteTokens: number;
  /** Completion tokens spent on hidden reasoning (OpenAI `reasoning_tokens`, Gemini thoughts). */
  reasoningTokens: number;
  inputAudioTokens: number;
  outputAudioTokens: number;
  inputImageTokens: number;
  outputImageTokens: number;
  /** True when the gateway counted the tokens itself because the upstream reported none. */
  estimated: boolean;
}

export function emptyUsage(): Usage {
  return {
    inputTokens: 0,
    outputTokens: 0,
    cachedReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    inputAudioTokens: 0,
    outputAudioTokens: 0,
    inputImageTokens: 0,
    outputImageTokens: 0,
    estimated: false,
  };
}

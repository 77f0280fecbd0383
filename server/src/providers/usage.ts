import { emptyUsage, type Usage } from '../billing/pricing/usage.js';

export type { Usage };

type JsonRecord = Record<string, unknown>;

function isRecord(v: unknown): v is JsonRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A non-negative integer count, or undefined when the field is absent or not a number. */
function count(v: unknown): number | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
  return Math.max(0, Math.trunc(v));
}

function details(v: unknown): JsonRecord {
  return isRecord(v) ? v : {};
}

/**
 * Keeps the kind fields disjoint parts of their total (billing/pricing/usage.ts rules): upstreams report the
 * kinds independently (OpenAI's `audio_tokens` may include cached audio), so each kind takes at most
 * what the earlier ones left.
 */
function clampKinds(total: number, kinds: number[]): number[] {
  let left = total;
  return kinds.map((k) => {
    const taken = Math.min(k, left);
    left -= taken;
    return taken;
  });
}

/**
 * Maps an OpenAI-style `usage` object to the normalised Usage, or null when it holds no token
 * counts. Understands:
 * - chat/completions and completions: `prompt_tokens`, `completion_tokens`,
 *   `prompt_tokens_details.{cached_tokens,cache_write_tokens,audio_tokens}`,
 *   `completion_tokens_details.{reasoning_tokens,audio_tokens}`; vendor variants DeepSeek
 *   `prompt_cache_hit_tokens` and a top-level `cached_tokens` (Moonshot);
 * - embeddings and rerank: `prompt_tokens` (and `total_tokens` alone);
 * - Responses API: `input_tokens`, `output_tokens`, `input_tokens_details.cached_tokens`,
 *   `output_tokens_details.reasoning_tokens`;
 * - gpt-image-1 images: `input_tokens_details.{text_tokens,image_tokens}`; the output is image
 *   tokens unless `output_tokens_details` splits it;
 * - transcriptions with `type: "tokens"`: `input_token_details.audio_tokens`.
 * Transcription usage of `type: "duration"` (whisper-1) counts seconds, not tokens: null.
 */
export function fromOpenAiUsage(u: unknown): Usage | null {
  if (!isRecord(u) || u.type === 'duration') return null;
  let input = count(u.prompt_tokens) ?? count(u.input_tokens);
  let output = count(u.completion_tokens) ?? count(u.output_tokens);
  const total = count(u.total_tokens);
  if (input === undefined && output === undefined) {
    if (total === undefined) return null;
    // Embedding-style answers from some vendors carry only a total, and all of it is prompt.
    input = total;
  }
  input ??= 0;
  output ??= total !== undefined && total > input ? total - input : 0;

  const inDetails = details(u.prompt_tokens_details ?? u.input_tokens_details ?? u.input_token_details);
  const outDetails = details(u.completion_tokens_details ?? u.output_tokens_details);
  const cached =
    count(inDetails.cached_tokens) ?? count(u.prompt_cache_hit_tokens) ?? count(u.cached_tokens) ?? 0;
  const cacheWrite = count(inDetails.cache_write_tokens) ?? 0;
  const inAudio = count(inDetails.audio_tokens) ?? 0;
  const inImage = count(inDetails.image_tokens) ?? 0;
  const isImageUsage =
    inDetails.image_tokens !== undefined &&
    inDetails.text_tokens !== undefined &&
    u.output_tokens_details === undefined &&
    u.completion_tokens_details === undefined;
  const reasoning = count(outDetails.reasoning_tokens) ?? 0;
  const outAudio = count(outDetails.audio_tokens) ?? 0;
  const outImage = isImageUsage ? output : (count(outDetails.image_tokens) ?? 0);

  const [cachedReadTokens = 0, cacheWriteTokens = 0, inputAudioTokens = 0, inputImageTokens = 0] = clampKinds(
    input,
    [cached, cacheWrite, inAudio, inImage],
  );
  const [reasoningTokens = 0, outputAudioTokens = 0, outputImageTokens = 0] = clampKinds(output, [
    reasoning,
    outAudio,
    outImage,
  ]);
  return {
    ...emptyUsage(),
    inputTokens: input,
    outputTokens: output,
    cachedReadTokens,
    cacheWriteTokens,
    reasoningTokens,
    inputAudioTokens,
    outputAudioTokens,
    inputImageTokens,
    outputImageTokens,
  };
}

/**
 * The chat/completions `usage` object for a Usage, used when the gateway must write usage itself
 * (a client asked for `include_usage` but the upstream sent none).
 */
export function toOpenAiChatUsage(u: Usage): JsonRecord {
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
    prompt_tokens_details: { cached_tokens: u.cachedReadTokens, audio_tokens: u.inputAudioTokens },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens, audio_tokens: u.outputAudioTokens },
  };
}

/** Upstream usage that says nothing (all zero) is treated as absent, so the gateway counts instead. */
export function isMeaningfulUsage(u: Usage | null): u is Usage {
  return u !== null && u.inputTokens + u.outputTokens > 0;
}

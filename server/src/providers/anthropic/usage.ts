import { emptyUsage, type Usage } from '../../billing/pricing/usage.js';
import { asCount, asRecord, isRecord, type JsonRecord } from '../translate/json-reading.js';
import type { AnthropicUsage } from './message-types.js';

/**
 * Maps an Anthropic `usage` object to the normalised Usage, or null when it holds no counts.
 * Anthropic's `input_tokens` leaves out the prompt tokens read from or written to the cache, which
 * it reports beside it; the normalised `inputTokens` counts every prompt token, so they are added
 * in. `output_tokens` already includes thinking; `output_tokens_details.thinking_tokens`, when the
 * API sends it, says how much of it was thinking.
 */
export function fromAnthropicUsage(u: unknown): Usage | null {
  if (!isRecord(u)) return null;
  const plain = asCount(u.input_tokens);
  const output = asCount(u.output_tokens);
  const cacheRead = asCount(u.cache_read_input_tokens) ?? 0;
  const cacheWrite = asCount(u.cache_creation_input_tokens) ?? 0;
  if (plain === undefined && output === undefined && cacheRead === 0 && cacheWrite === 0) return null;
  const outputTokens = output ?? 0;
  const thinking = asCount(asRecord(u.output_tokens_details)?.thinking_tokens) ?? 0;
  return {
    ...emptyUsage(),
    inputTokens: (plain ?? 0) + cacheRead + cacheWrite,
    outputTokens,
    cachedReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: Math.min(thinking, outputTokens),
  };
}

/** The Anthropic `usage` object for a Usage: the cache reads and writes leave `input_tokens` again. */
export function toAnthropicUsage(u: Usage): AnthropicUsage {
  const out: AnthropicUsage = {
    input_tokens: Math.max(0, u.inputTokens - u.cachedReadTokens - u.cacheWriteTokens),
    output_tokens: u.outputTokens,
    cache_creation_input_tokens: u.cacheWriteTokens,
    cache_read_input_tokens: u.cachedReadTokens,
  };
  if (u.reasoningTokens > 0) out.output_tokens_details = { thinking_tokens: u.reasoningTokens };
  return out;
}

/**
 * The usage of a whole stream: `message_start` carries the prompt side (and a provisional output
 * count), each `message_delta` carries cumulative totals, with fields that do not apply left out or
 * null. Later non-null values replace earlier ones; nothing is added up.
 */
export function mergeAnthropicUsage(base: JsonRecord, update: unknown): JsonRecord {
  if (!isRecord(update)) return base;
  const out: JsonRecord = { ...base };
  for (const [k, v] of Object.entries(update)) if (v !== null && v !== undefined) out[k] = v;
  return out;
}

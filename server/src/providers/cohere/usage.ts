import { emptyUsage, type Usage } from '../../billing/pricing/usage.js';
import { asCount, asRecord, isRecord } from '../translate/json-reading.js';

/**
 * Cohere's chat usage: `tokens` counts what the model saw and wrote (prompt template included),
 * `billed_units` what Cohere bills. The gateway bills by its own prices, so `tokens` wins; the
 * billed units are the fallback when `tokens` is absent. Rerank bills `search_units`, not tokens:
 * null, so the relay counts the texts itself.
 */
export function fromCohereUsage(u: unknown): Usage | null {
  if (!isRecord(u)) return null;
  const source = asRecord(u.tokens) ?? asRecord(u.billed_units);
  const input = asCount(source?.input_tokens);
  const output = asCount(source?.output_tokens);
  if (input === undefined && output === undefined) return null;
  return { ...emptyUsage(), inputTokens: input ?? 0, outputTokens: output ?? 0 };
}

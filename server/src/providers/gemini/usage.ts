import { emptyUsage, type Usage } from '../../billing/pricing/usage.js';
import { asArray, asCount, asString, isRecord } from '../translate/json-reading.js';
import type { GeminiUsageMetadata } from './content-types.js';

interface ModalityCounts {
  audio: number;
  image: number;
}

/** Sums a `*TokensDetails` list by modality (VIDEO frames are billed like images). */
function byModality(details: unknown): ModalityCounts {
  const out = { audio: 0, image: 0 };
  for (const d of asArray(details)) {
    if (!isRecord(d)) continue;
    const n = asCount(d.tokenCount) ?? 0;
    const modality = asString(d.modality)?.toUpperCase();
    if (modality === 'AUDIO') out.audio += n;
    else if (modality === 'IMAGE' || modality === 'VIDEO') out.image += n;
  }
  return out;
}

/**
 * Maps a Gemini `usageMetadata` to the normalised Usage, or null when it holds no counts.
 * - `promptTokenCount` already includes `cachedContentTokenCount`; tokens of tool-use prompts
 *   (`toolUsePromptTokenCount`, e.g. search results fed back) are prompt tokens billed on top.
 * - `candidatesTokenCount` leaves out `thoughtsTokenCount`, so thoughts are added to the output
 *   and reported as reasoning.
 * - Modality details include cached tokens; cached audio or image tokens count as cached only.
 */
export function fromGeminiUsage(m: unknown): Usage | null {
  if (!isRecord(m)) return null;
  const prompt = asCount(m.promptTokenCount);
  const candidates = asCount(m.candidatesTokenCount);
  const thoughts = asCount(m.thoughtsTokenCount) ?? 0;
  const toolPrompt = asCount(m.toolUsePromptTokenCount) ?? 0;
  const total = asCount(m.totalTokenCount);
  if (prompt === undefined && candidates === undefined && thoughts === 0 && total === undefined) return null;
  const inputTokens = (prompt ?? 0) + toolPrompt;
  // A reply cut off by a safety block may lack `candidatesTokenCount`; the total still tells.
  const visible = candidates ?? (total !== undefined ? Math.max(0, total - inputTokens - thoughts) : 0);
  const outputTokens = visible + thoughts;
  const cached = Math.min(asCount(m.cachedContentTokenCount) ?? 0, inputTokens);
  const promptKinds = byModality(m.promptTokensDetails);
  const cachedKinds = byModality(m.cacheTokensDetails);
  const outKinds = byModality(m.candidatesTokensDetails);
  let left = inputTokens - cached;
  const inputAudioTokens = Math.min(Math.max(0, promptKinds.audio - cachedKinds.audio), left);
  left -= inputAudioTokens;
  const inputImageTokens = Math.min(Math.max(0, promptKinds.image - cachedKinds.image), left);
  let outLeft = outputTokens - thoughts;
  const outputAudioTokens = Math.min(outKinds.audio, outLeft);
  outLeft -= outputAudioTokens;
  const outputImageTokens = Math.min(outKinds.image, outLeft);
  return {
    ...emptyUsage(),
    inputTokens,
    outputTokens,
    cachedReadTokens: cached,
    reasoningTokens: thoughts,
    inputAudioTokens,
    inputImageTokens,
    outputAudioTokens,
    outputImageTokens,
  };
}

/** The Gemini `usageMetadata` for a Usage (reasoning goes back into `thoughtsTokenCount`). */
export function toGeminiUsageMetadata(u: Usage): GeminiUsageMetadata {
  const out: GeminiUsageMetadata = {
    promptTokenCount: u.inputTokens,
    candidatesTokenCount: Math.max(0, u.outputTokens - u.reasoningTokens),
    totalTokenCount: u.inputTokens + u.outputTokens,
  };
  if (u.cachedReadTokens > 0) out.cachedContentTokenCount = u.cachedReadTokens;
  if (u.reasoningTokens > 0) out.thoughtsTokenCount = u.reasoningTokens;
  return out;
}

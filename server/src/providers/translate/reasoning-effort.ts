import type { GeminiThinkingConfig } from '../gemini/content-types.js';
import { asNumber, asString, isRecord } from './json-reading.js';

// OpenAI asks for reasoning by effort level (`reasoning_effort`); Anthropic by a token budget inside
// `max_tokens` (`thinking.budget_tokens`, at least 1024); Gemini 2.x by a budget
// (`thinkingBudget`) and Gemini 3 by a level (`thinkingLevel`). The mappings here are the one place
// those scales meet.

/** Anthropic refuses a smaller thinking budget. */
export const ANTHROPIC_MIN_THINKING_BUDGET = 1024;

/**
 * Share of `ClaudeBudgetTokensPercentage` (the share of max_tokens given to thinking at full effort)
 * used per effort level; `minimal` gets the smallest budget Anthropic accepts.
 */
const ANTHROPIC_EFFORT_SHARE: Readonly<Record<string, number>> = {
  minimal: 0,
  low: 0.25,
  medium: 0.5,
  high: 1,
  xhigh: 1,
  max: 1,
};

/**
 * The Anthropic thinking budget for an OpenAI effort level, or null for no thinking (`none`, an
 * unknown level, or a `max_tokens` too small to hold the minimum budget and an answer).
 */
export function anthropicBudgetForEffort(
  effort: string,
  maxTokens: number,
  fullShare: number,
): number | null {
  const share = ANTHROPIC_EFFORT_SHARE[effort];
  if (share === undefined || maxTokens <= ANTHROPIC_MIN_THINKING_BUDGET) return null;
  const budget = Math.max(ANTHROPIC_MIN_THINKING_BUDGET, Math.floor(maxTokens * fullShare * share));
  // The budget must stay below max_tokens, which it is part of.
  return Math.min(budget, maxTokens - 1);
}

/** The effort level a thinking budget (Anthropic or Gemini 2.x) stands for. */
export function effortForBudget(budget: number): 'low' | 'medium' | 'high' {
  if (budget < 4096) return 'low';
  if (budget < 16384) return 'medium';
  return 'high';
}

/**
 * The effort level an Anthropic `thinking` (and `output_config.effort`) asks for, or undefined when
 * it asks for none or leaves it to the model.
 */
export function effortForAnthropicThinking(thinking: unknown, outputConfig: unknown): string | undefined {
  const effort = isRecord(outputConfig) ? asString(outputConfig.effort) : undefined;
  if (!isRecord(thinking) || thinking.type === 'disabled') return undefined;
  if (effort === 'low' || effort === 'medium' || effort === 'high') return effort;
  if (effort === 'xhigh' || effort === 'max') return 'high';
  const budget = asNumber(thinking.budget_tokens);
  if (thinking.type === 'enabled' && budget !== undefined) return effortForBudget(budget);
  return undefined;
}

/** The Gemini generation of a model name (`gemini-2.5-flash` -> 2), or undefined. */
function geminiGeneration(model: string): number | undefined {
  const m = /gemini-(\d+)/i.exec(model);
  return m?.[1] ? Number(m[1]) : undefined;
}

/** Gemini 3 and later take a `thinkingLevel`; earlier models a `thinkingBudget` (never both). */
export function geminiUsesThinkingLevel(model: string): boolean {
  return (geminiGeneration(model) ?? 0) >= 3;
}

const GEMINI_BUDGETS: Readonly<Record<string, number>> = {
  minimal: 512,
  low: 1024,
  medium: 8192,
  high: 24576,
  xhigh: 24576,
  max: 24576,
};

/**
 * The Gemini thinking config for an OpenAI effort level, or undefined to leave it to the model.
 * Thoughts are asked for whenever reasoning is, since an OpenAI client shows `reasoning_content`.
 * Gemini 3 Pro knows only the levels low and high, so medium leaves the model's own default; and
 * `none` cannot switch thinking off on the Pro models, which refuse a zero budget.
 */
export function geminiThinkingForEffort(effort: string, model: string): GeminiThinkingConfig | undefined {
  if (geminiUsesThinkingLevel(model)) {
    if (effort === 'none') return { thinkingLevel: 'low' };
    if (effort === 'minimal' || effort === 'low') return { includeThoughts: true, thinkingLevel: 'low' };
    if (effort === 'medium') return { includeThoughts: true };
    if (effort === 'high' || effort === 'xhigh' || effort === 'max')
      return { includeThoughts: true, thinkingLevel: 'high' };
    return undefined;
  }
  if (effort === 'none') return /-pro\b/i.test(model) ? undefined : { thinkingBudget: 0 };
  const budget = GEMINI_BUDGETS[effort];
  return budget === undefined ? undefined : { includeThoughts: true, thinkingBudget: budget };
}

/** The OpenAI effort level a Gemini `thinkingConfig` asks for, or undefined (off, dynamic or absent). */
export function effortForGeminiThinking(config: unknown): string | undefined {
  if (!isRecord(config)) return undefined;
  const level = asString(config.thinkingLevel)?.toLowerCase();
  if (level === 'minimal' || level === 'low' || level === 'medium' || level === 'high') return level;
  const budget = asNumber(config.thinkingBudget);
  if (budget !== undefined && budget > 0) return effortForBudget(budget);
  return undefined;
}

// The built-in price table (GET /api/prices?type=default, and the seed of an empty prices table).
// Rows are written in the vendors' list prices, USD per 1M tokens, and converted with one-hub's
// price unit: ratio 1 = $0.002 per 1K tokens, so ratio = USD per 1M / 2.

import type { PriceType } from './enums.js';

export interface DefaultPrice {
  model: string;
  type: PriceType;
  /** Owner id: a channel-type number of the provider catalog. */
  channel_type: number;
  input: number;
  output: number;
  /** Multipliers of the input (or output) ratio for special token kinds; 1 changes nothing. */
  extra_ratios?: Record<string, number>;
}

const OPENAI = 1;
const ANTHROPIC = 14;
const ZHIPU = 16;
const DASHSCOPE = 17;
const GEMINI = 25;
const DEEPSEEK = 28;
const MOONSHOT = 29;
const MISTRAL = 30;
const GROQ = 31;
const MIDJOURNEY = 34;
const COHERE = 36;
const SUNO = 41;
const XAI = 56;

/** A tokens price from USD per 1M input and output tokens. */
function perM(
  model: string,
  channelType: number,
  inputUsd: number,
  outputUsd: number,
  extra?: Record<string, number>,
): DefaultPrice {
  const p: DefaultPrice = {
    model,
    type: 'tokens',
    channel_type: channelType,
    input: inputUsd / 2,
    output: outputUsd / 2,
  };
  if (extra) p.extra_ratios = extra;
  return p;
}

/** A per-call price: quota = 1000 × input per call, so `input` 50 = $0.10. */
function perCall(model: string, channelType: number, input: number): DefaultPrice {
  return { model, type: 'times', channel_type: channelType, input, output: 0 };
}

/** Cache reads billed at `share` of the input price. */
const cacheRead = (share: number) => ({ cached_read_tokens: share });
// Anthropic: 5-minute cache writes cost 1.25× input, reads 0.1×.
const ANTHROPIC_CACHE = { cached_read_tokens: 0.1, cached_write_tokens: 1.25 };

// Image models: the relay counts 1000 × size factor × n prompt tokens per request,
// so a 1024² dall-e-2 image (factor 1.25) at ratio 8 costs 10 000 quota = $0.02, its list price.
const openai: DefaultPrice[] = [
  perM('gpt-5', OPENAI, 1.25, 10, cacheRead(0.1)),
  perM('gpt-5.1', OPENAI, 1.25, 10, cacheRead(0.1)),
  perM('gpt-5-chat-latest', OPENAI, 1.25, 10, cacheRead(0.1)),
  perM('gpt-5-mini', OPENAI, 0.25, 2, cacheRead(0.1)),
  perM('gpt-5-nano', OPENAI, 0.05, 0.4, cacheRead(0.1)),
  perM('gpt-4.1', OPENAI, 2, 8, cacheRead(0.25)),
  perM('gpt-4.1-mini', OPENAI, 0.4, 1.6, cacheRead(0.25)),
  perM('gpt-4.1-nano', OPENAI, 0.1, 0.4, cacheRead(0.25)),
  perM('gpt-4o', OPENAI, 2.5, 10, cacheRead(0.5)),
  perM('gpt-4o-mini', OPENAI, 0.15, 0.6, cacheRead(0.5)),
  perM('gpt-4-turbo', OPENAI, 10, 30),
  perM('gpt-4', OPENAI, 30, 60),
  perM('gpt-3.5-turbo', OPENAI, 0.5, 1.5),
  perM('o1', OPENAI, 15, 60, cacheRead(0.5)),
  perM('o1-mini', OPENAI, 1.1, 4.4, cacheRead(0.5)),
  perM('o3', OPENAI, 2, 8, cacheRead(0.25)),
  perM('o3-mini', OPENAI, 1.1, 4.4, cacheRead(0.5)),
  perM('o4-mini', OPENAI, 1.1, 4.4, cacheRead(0.25)),
  // Audio tokens cost $40/$80 per 1M against text at $2.50/$10.
  perM('gpt-4o-audio-preview', OPENAI, 2.5, 10, { input_audio_tokens: 16, output_audio_tokens: 8 }),
  perM('gpt-4o-realtime-preview', OPENAI, 5, 20, {
    input_audio_tokens: 8,
    output_audio_tokens: 4,
    cached_read_tokens: 0.5,
  }),
  perM('gpt-realtime', OPENAI, 4, 16, {
    input_audio_tokens: 8,
    output_audio_tokens: 4,
    cached_read_tokens: 0.1,
  }),
  perM('text-embedding-3-small', OPENAI, 0.02, 0.02),
  perM('text-embedding-3-large', OPENAI, 0.13, 0.13),
  perM('text-embedding-ada-002', OPENAI, 0.1, 0.1),
  perM('omni-moderation-latest', OPENAI, 0, 0),
  perM('text-moderation-latest', OPENAI, 0, 0),
  perM('dall-e-2', OPENAI, 16, 16),
  perM('dall-e-3', OPENAI, 40, 40),
  // Image input $10 and output $40 per 1M; text input is half the image-input price.
  perM('gpt-image-1', OPENAI, 10, 40, { input_text_tokens: 0.5 }),
  // Speech is counted per input character: $15 / $30 per 1M characters.
  perM('tts-1', OPENAI, 15, 15),
  perM('tts-1-hd', OPENAI, 30, 30),
  // Transcription is counted in tokens of the returned text: about 200 per minute, so $0.006/min.
  perM('whisper-1', OPENAI, 30, 30),
];

const anthropic: DefaultPrice[] = [
  perM('claude-opus-4-5-20251101', ANTHROPIC, 5, 25, ANTHROPIC_CACHE),
  perM('claude-opus-4-5', ANTHROPIC, 5, 25, ANTHROPIC_CACHE),
  perM('claude-opus-4-1-20250805', ANTHROPIC, 15, 75, ANTHROPIC_CACHE),
  perM('claude-opus-4-1', ANTHROPIC, 15, 75, ANTHROPIC_CACHE),
  perM('claude-opus-4-20250514', ANTHROPIC, 15, 75, ANTHROPIC_CACHE),
  perM('claude-opus-4-0', ANTHROPIC, 15, 75, ANTHROPIC_CACHE),
  perM('claude-sonnet-4-5-20250929', ANTHROPIC, 3, 15, ANTHROPIC_CACHE),
  perM('claude-sonnet-4-5', ANTHROPIC, 3, 15, ANTHROPIC_CACHE),
  perM('claude-sonnet-4-20250514', ANTHROPIC, 3, 15, ANTHROPIC_CACHE),
  perM('claude-sonnet-4-0', ANTHROPIC, 3, 15, ANTHROPIC_CACHE),
  perM('claude-3-7-sonnet-20250219', ANTHROPIC, 3, 15, ANTHROPIC_CACHE),
  perM('claude-3-7-sonnet-latest', ANTHROPIC, 3, 15, ANTHROPIC_CACHE),
  perM('claude-haiku-4-5-20251001', ANTHROPIC, 1, 5, ANTHROPIC_CACHE),
  perM('claude-haiku-4-5', ANTHROPIC, 1, 5, ANTHROPIC_CACHE),
  perM('claude-3-5-haiku-20241022', ANTHROPIC, 0.8, 4, ANTHROPIC_CACHE),
  perM('claude-3-5-haiku-latest', ANTHROPIC, 0.8, 4, ANTHROPIC_CACHE),
  perM('claude-3-haiku-20240307', ANTHROPIC, 0.25, 1.25, ANTHROPIC_CACHE),
];

// Gemini prices for prompts up to 200K tokens (longer prompts cost more upstream).
const gemini: DefaultPrice[] = [
  perM('gemini-3-pro-preview', GEMINI, 2, 12, cacheRead(0.1)),
  perM('gemini-2.5-pro', GEMINI, 1.25, 10, cacheRead(0.1)),
  perM('gemini-2.5-flash', GEMINI, 0.3, 2.5, cacheRead(0.1)),
  perM('gemini-2.5-flash-lite', GEMINI, 0.1, 0.4, cacheRead(0.1)),
  perM('gemini-2.0-flash', GEMINI, 0.1, 0.4, cacheRead(0.25)),
  perM('gemini-2.0-flash-lite', GEMINI, 0.075, 0.3),
  perM('gemini-embedding-001', GEMINI, 0.15, 0.15),
  // Free of charge on the Gemini API.
  perM('text-embedding-004', GEMINI, 0, 0),
];

const others: DefaultPrice[] = [
  // DeepSeek V3.2 behind both names; cache hits cost a tenth.
  perM('deepseek-chat', DEEPSEEK, 0.28, 0.42, cacheRead(0.1)),
  perM('deepseek-reasoner', DEEPSEEK, 0.28, 0.42, cacheRead(0.1)),

  perM('mistral-large-2411', MISTRAL, 2, 6),
  perM('mistral-medium-2505', MISTRAL, 0.4, 2),
  perM('mistral-medium-latest', MISTRAL, 0.4, 2),
  perM('mistral-small-2503', MISTRAL, 0.1, 0.3),
  perM('mistral-small-latest', MISTRAL, 0.1, 0.3),
  perM('codestral-2501', MISTRAL, 0.3, 0.9),
  perM('mistral-embed', MISTRAL, 0.1, 0.1),

  perM('llama-3.3-70b-versatile', GROQ, 0.59, 0.79),
  perM('llama-3.1-8b-instant', GROQ, 0.05, 0.08),
  perM('meta-llama/llama-4-scout-17b-16e-instruct', GROQ, 0.11, 0.34),
  perM('meta-llama/llama-4-maverick-17b-128e-instruct', GROQ, 0.2, 0.6),

  perM('grok-4', XAI, 3, 15, cacheRead(0.25)),
  perM('grok-4-fast-reasoning', XAI, 0.2, 0.5, cacheRead(0.25)),
  perM('grok-4-fast-non-reasoning', XAI, 0.2, 0.5, cacheRead(0.25)),
  perM('grok-code-fast-1', XAI, 0.2, 1.5, cacheRead(0.1)),
  perM('grok-3', XAI, 3, 15, cacheRead(0.25)),
  perM('grok-3-mini', XAI, 0.3, 0.5, cacheRead(0.25)),

  perM('kimi-k2-0905-preview', MOONSHOT, 0.6, 2.5, cacheRead(0.25)),
  perM('kimi-k2-0711-preview', MOONSHOT, 0.6, 2.5, cacheRead(0.25)),
  perM('kimi-k2-thinking', MOONSHOT, 0.6, 2.5, cacheRead(0.25)),
  perM('moonshot-v1-8k', MOONSHOT, 0.2, 2),
  perM('moonshot-v1-32k', MOONSHOT, 1, 3),
  perM('moonshot-v1-128k', MOONSHOT, 2, 5),

  // Qwen at the international (USD) list prices, lowest context tier.
  perM('qwen3-max', DASHSCOPE, 1.2, 6),
  perM('qwen-max', DASHSCOPE, 1.6, 6.4),
  perM('qwen-plus', DASHSCOPE, 0.4, 1.2),
  perM('qwen-turbo', DASHSCOPE, 0.05, 0.2),
  perM('qwen-vl-max', DASHSCOPE, 0.8, 3.2),
  perM('text-embedding-v3', DASHSCOPE, 0.07, 0.07),

  perM('glm-4.6', ZHIPU, 0.6, 2.2),
  perM('glm-4.5', ZHIPU, 0.6, 2.2),
  perM('glm-4.5-air', ZHIPU, 0.2, 1.1),
  perM('glm-4.5v', ZHIPU, 0.6, 1.8),
  perM('glm-4.5-flash', ZHIPU, 0, 0),

  perM('command-a-03-2025', COHERE, 2.5, 10),
  perM('command-r-plus-08-2024', COHERE, 2.5, 10),
  perM('command-r-08-2024', COHERE, 0.15, 0.6),
];

// Midjourney actions priced per call in the fast, turbo and relax modes alike.
const MJ_ACTIONS: readonly [action: string, price: number][] = [
  ['imagine', 50],
  ['variation', 50],
  ['high_variation', 50],
  ['low_variation', 50],
  ['reroll', 50],
  ['blend', 50],
  ['modal', 50],
  ['zoom', 50],
  ['pan', 50],
  ['shorten', 50],
  ['describe', 25],
  ['upscale', 25],
  ['swap_face', 25],
  ['inpaint', 0],
  ['custom_zoom', 0],
  ['upload', 0],
];

const midjourney: DefaultPrice[] = ['mj_', 'mj_turbo_', 'mj_relax_'].flatMap((prefix) =>
  MJ_ACTIONS.map(([action, price]) => perCall(prefix + action, MIDJOURNEY, price)),
);

const suno: DefaultPrice[] = [
  perCall('suno_lyrics', SUNO, 5),
  perCall('chirp-v3-0', SUNO, 50),
  perCall('chirp-v3-5', SUNO, 50),
];

export const defaultPrices: readonly DefaultPrice[] = [
  ...openai,
  ...anthropic,
  ...gemini,
  ...others,
  ...midjourney,
  ...suno,
];

// Local token counting, the fallback when an upstream reports no usage (and the prompt estimate
// used to reserve quota). gpt-tokenizer is pure JS and offline; its encoders take a few hundred
// milliseconds to load, so each is imported on first use instead of at start-up.

export type EncodingName = 'o200k_base' | 'cl100k_base';

/** Counts the tokens of a text. Special-token markers in user text are counted as plain text. */
export interface Tokenizer {
  readonly encoding: EncodingName | 'estimate';
  count(text: string): number;
}

/** UTF-8 bytes per token assumed by the estimate: English runs about 4, CJK text and code about 3. */
const ESTIMATE_BYTES_PER_TOKEN = 3;

/**
 * A stand-in tokenizer for the reserve, where a request must not wait on BPE: a third of the
 * text's UTF-8 bytes. It errs high for English and is close for CJK text and code; the bill is
 * always made from the upstream's usage, or from the real tokenizer when there is none.
 */
export const ESTIMATING_TOKENIZER: Tokenizer = {
  encoding: 'estimate',
  count: (text) => Math.ceil(Buffer.byteLength(text, 'utf8') / ESTIMATE_BYTES_PER_TOKEN),
};

/**
 * The count the operator chooses with ApproximateTokenEnabled instead of the BPE encoders: 0.38
 * tokens per UTF-8 byte, the approximation one-hub applies (truncated, as its integer conversion).
 */
export const APPROXIMATE_TOKENIZER: Tokenizer = {
  encoding: 'estimate',
  count: (text) => Math.floor(Buffer.byteLength(text, 'utf8') * 0.38),
};

/** What of a prompt a channel counts (its pre_cost): everything, everything but images, or nothing. */
export interface PromptCounting {
  images: boolean;
  none: boolean;
}

export const COUNT_EVERYTHING: PromptCounting = { images: true, none: false };

/** A channel's pre_cost (1 everything, 2 no images, 3 nothing) as a PromptCounting. */
export function promptCountingOf(preCost: number): PromptCounting {
  if (preCost === 3) return { images: false, none: true };
  if (preCost === 2) return { images: false, none: false };
  return COUNT_EVERYTHING;
}

/** Chat overhead as OpenAI documents it for current models ("How to count tokens with tiktoken"). */
export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_NAME = 1;
export const REPLY_PRIMING_TOKENS = 3;

/**
 * Fixed estimates for image parts, since images are not downloaded to measure them. OpenAI bills a
 * low-detail image 85 tokens, and a high-detail one 85 + 170 per 512px tile after scaling; 765 is a
 * 1024x1024 image (4 tiles), used for `high` and `auto`.
 */
export const IMAGE_TOKENS: Readonly<Record<'low' | 'high' | 'auto', number>> = {
  low: 85,
  high: 765,
  auto: 765,
};

const O200K_FAMILIES = [
  /^gpt-4o/,
  /^chatgpt-4o/,
  /^gpt-4\.1/,
  /^gpt-4\.5/,
  /^gpt-5/,
  /^gpt-oss/,
  /^gpt-image/,
  /^gpt-realtime/,
  /^gpt-audio/,
  /^o\d/,
  /^omni-/,
  /^codex-/,
];

/** o200k for gpt-4o, 4.1, 4.5, 5, the o-series and their relatives; cl100k for everything else. */
export function encodingForModel(model: string): EncodingName {
  const name = model.toLowerCase().replace(/^.*\//, '');
  return O200K_FAMILIES.some((re) => re.test(name)) ? 'o200k_base' : 'cl100k_base';
}

type JsonRecord = Record<string, unknown>;

function isRecord(v: unknown): v is JsonRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function textTokens(tok: Tokenizer, v: unknown): number {
  return typeof v === 'string' && v ? tok.count(v) : 0;
}

function imageTokens(part: JsonRecord): number {
  const image = isRecord(part.image_url) ? part.image_url : {};
  const detail = image.detail === 'low' || image.detail === 'high' ? image.detail : 'auto';
  return IMAGE_TOKENS[detail];
}

/** Tokens of a message `content`: a string, or parts of which text and images are counted. */
function contentTokens(tok: Tokenizer, content: unknown, images: boolean): number {
  if (typeof content === 'string') return textTokens(tok, content);
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const part of content) {
    if (typeof part === 'string') n += textTokens(tok, part);
    else if (!isRecord(part)) continue;
    else if (part.type === 'image_url' || part.type === 'input_image') n += images ? imageTokens(part) : 0;
    else n += textTokens(tok, part.text);
  }
  return n;
}

function callTokens(tok: Tokenizer, calls: unknown): number {
  if (!Array.isArray(calls)) return 0;
  let n = 0;
  for (const call of calls) {
    if (!isRecord(call) || !isRecord(call.function)) continue;
    n += textTokens(tok, call.function.name) + textTokens(tok, call.function.arguments);
  }
  return n;
}

/**
 * Prompt tokens of chat messages: 3 per message, the tokens of every string field (role, content
 * text, name, tool_call_id, ...), 1 more per `name`, 3 for the reply priming. Content parts count
 * their text and images by IMAGE_TOKENS; audio and file parts are not estimated.
 */
export function countChatMessages(tok: Tokenizer, messages: unknown, images = true): number {
  if (!Array.isArray(messages)) return 0;
  let n = 0;
  for (const m of messages) {
    if (!isRecord(m)) continue;
    n += TOKENS_PER_MESSAGE;
    for (const [key, value] of Object.entries(m)) {
      if (key === 'content') n += contentTokens(tok, value, images);
      else if (key === 'tool_calls') n += callTokens(tok, value);
      else if (key === 'function_call' && isRecord(value)) {
        n += textTokens(tok, value.name) + textTokens(tok, value.arguments);
      } else if (typeof value === 'string') {
        n += textTokens(tok, value);
        if (key === 'name') n += TOKENS_PER_NAME;
      }
    }
  }
  return n + REPLY_PRIMING_TOKENS;
}

/**
 * Tokens of tool definitions. OpenAI does not document how tools are rendered into the prompt;
 * counting each function's JSON is a rough estimate that errs slightly high.
 */
export function countTools(tok: Tokenizer, tools: unknown): number {
  if (!Array.isArray(tools)) return 0;
  let n = 0;
  for (const tool of tools) {
    if (isRecord(tool) && isRecord(tool.function)) n += tok.count(JSON.stringify(tool.function));
  }
  return n;
}

/** Prompt tokens of a chat/completions request body: its messages and tools, as `counting` says. */
export function countChatRequest(
  tok: Tokenizer,
  body: JsonRecord,
  counting: PromptCounting = COUNT_EVERYTHING,
): number {
  if (counting.none) return 0;
  return (
    countChatMessages(tok, body.messages, counting.images) + countTools(tok, body.tools ?? body.functions)
  );
}

/**
 * Tokens of an embeddings `input` or a completions `prompt`: a string, an array of strings, an
 * array of token ids, or an array of token-id arrays (those count their length).
 */
export function countInput(tok: Tokenizer, input: unknown): number {
  if (typeof input === 'string') return textTokens(tok, input);
  if (!Array.isArray(input)) return 0;
  let n = 0;
  for (const item of input) {
    if (typeof item === 'string') n += textTokens(tok, item);
    else if (typeof item === 'number') n += 1;
    else if (Array.isArray(item)) n += item.length;
  }
  return n;
}

/** Tokens of generated text. */
export function countText(tok: Tokenizer, text: string): number {
  return textTokens(tok, text);
}

interface EncodingModule {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

async function loadEncoding(name: EncodingName): Promise<EncodingModule> {
  return name === 'o200k_base'
    ? import('gpt-tokenizer/encoding/o200k_base')
    : import('gpt-tokenizer/encoding/cl100k_base');
}

/**
 * Hands out tokenizers by model, loading each encoding once per instance (main.ts owns one).
 * Loading is lazy, so the first count for a family costs the import.
 */
export class TokenCounter {
  private readonly loading = new Map<EncodingName, Promise<Tokenizer>>();
  private readonly loaded = new Map<EncodingName, Tokenizer>();

  /** `approximate`: read at each count, so the option takes effect without a restart. */
  constructor(private readonly approximate: () => boolean = () => false) {}

  /** The cheap count for the reserve: the operator's approximation when chosen, else the estimate. */
  estimator(): Tokenizer {
    return this.approximate() ? APPROXIMATE_TOKENIZER : ESTIMATING_TOKENIZER;
  }

  tokenizer(model: string): Promise<Tokenizer> {
    if (this.approximate()) return Promise.resolve(APPROXIMATE_TOKENIZER);
    const encoding = encodingForModel(model);
    let t = this.loading.get(encoding);
    if (!t) {
      t = loadEncoding(encoding).then((mod) => {
        // An empty disallow list: text that looks like `<|endoftext|>` is counted, not rejected.
        const options = { disallowedSpecial: new Set<string>() };
        const tokenizer = { encoding, count: (text: string) => mod.countTokens(text, options) };
        this.loaded.set(encoding, tokenizer);
        return tokenizer;
      });
      // A failed import may be retried by the next caller.
      t.catch(() => this.loading.delete(encoding));
      this.loading.set(encoding, t);
    }
    return t;
  }

  /**
   * The model's tokenizer when its encoding is loaded, without waiting: a settlement counted in the
   * turn its reply ends is journaled before the reply's last byte leaves.
   */
  ready(model: string): Tokenizer | undefined {
    if (this.approximate()) return APPROXIMATE_TOKENIZER;
    return this.loaded.get(encodingForModel(model));
  }
}

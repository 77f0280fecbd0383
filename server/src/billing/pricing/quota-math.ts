import type { PriceType } from '@switchyard/domain';
import type { ExtraRatioKey, ModelPrice } from './price-book.js';
import type { Usage } from './usage.js';

// Pure quota arithmetic on one-hub's price formula; balances never go negative. Integer quota only.
//
// Rounding: amounts are computed in floating point, then rounded to 12 significant digits before
// the final integer step, so float noise cannot add a unit (10 x 0.7 is 7.000000000000001 in
// binary, and must bill 7, not 8). Tokens pricing then rounds UP (ceil) so every started unit is
// paid; times pricing rounds to the nearest unit per call (half up). A non-zero price never bills
// 0 for a call that used something: the minimum is 1 quota.

/** Defaults (one-hub's) for kinds a price does not set: cache reads are cheap, writes dear. */
const DEFAULT_CACHED_READ_RATIO = 0.1;
const DEFAULT_CACHED_WRITE_RATIO = 1.25;

export type ExtraSide = 'input' | 'output';

/** One special token kind as it was billed: its tokens cost `ratio` x the side's ratio each. */
export interface ExtraCharge {
  key: ExtraRatioKey;
  side: ExtraSide;
  tokens: number;
  ratio: number;
}

/** Everything the log detail shows about how a quota was reached. */
export interface QuotaBreakdown {
  priceType: PriceType;
  groupRatio: number;
  /** price.input x groupRatio. */
  inputRatio: number;
  /** price.output x groupRatio. */
  outputRatio: number;
  inputTokens: number;
  outputTokens: number;
  /** Kinds that were present (tokens > 0), in a fixed order. */
  extras: ExtraCharge[];
  /** Calls billed (times pricing); 0 for tokens pricing. */
  calls: number;
  /** The amount before rounding. */
  exact: number;
  /** The integer quota to charge. */
  quota: number;
  /** True when the minimum of 1 quota replaced a smaller amount. */
  minimumApplied: boolean;
}

/** Drops float noise below 12 significant digits (see the rounding note above). */
function trimNoise(x: number): number {
  return Number(x.toPrecision(12));
}

/**
 * `ceil` of the trimmed amount. Trimming moves x by at most |x| x 5e-12, so when x lies further than
 * that above the integer below it, the trimmed value has the same ceiling as x, and the string round
 * trip of `toPrecision` (~330 ns against ~17 ns) is skipped. From 1e11 up that distance is a whole
 * unit, so large amounts always take the trimmed path.
 */
export function ceilQuota(x: number): number {
  const below = Math.floor(x);
  if (x - below > x * 1e-11) return Math.max(0, below + 1);
  return Math.max(0, Math.ceil(trimNoise(x)));
}

function assertCount(name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a non-negative number`);
}

/** Ratio of a kind: the price's own value, else the documented default. */
function ratioOf(price: ModelPrice, key: ExtraRatioKey): number {
  const set = price.extraRatios[key];
  if (set !== undefined) return set;
  if (key === 'cached_read_tokens') return price.extraRatios.cached_tokens ?? DEFAULT_CACHED_READ_RATIO;
  if (key === 'cached_write_tokens') return DEFAULT_CACHED_WRITE_RATIO;
  return 1;
}

/**
 * The kinds of a usage, each with its ratio. `cached_tokens` (one-hub's OpenAI name) is read as the
 * ratio of cache reads when `cached_read_tokens` is not set: the normalised usage has one cache-read
 * count whichever provider reported it. Text tokens are what is left of a side once its other kinds
 * are taken out; they only matter when the price sets a text ratio, so they are listed only then.
 */
function extraCharges(price: ModelPrice, usage: Usage): ExtraCharge[] {
  const list: ExtraCharge[] = [];
  const add = (key: ExtraRatioKey, side: ExtraSide, tokens: number) => {
    assertCount(key, tokens);
    if (tokens > 0) list.push({ key, side, tokens, ratio: ratioOf(price, key) });
  };
  add('cached_read_tokens', 'input', usage.cachedReadTokens);
  add('cached_write_tokens', 'input', usage.cacheWriteTokens);
  add('input_audio_tokens', 'input', usage.inputAudioTokens);
  add('input_image_tokens', 'input', usage.inputImageTokens);
  if (price.extraRatios.input_text_tokens !== undefined) {
    const text =
      usage.inputTokens -
      usage.cachedReadTokens -
      usage.cacheWriteTokens -
      usage.inputAudioTokens -
      usage.inputImageTokens;
    add('input_text_tokens', 'input', Math.max(0, text));
  }
  add('reasoning_tokens', 'output', usage.reasoningTokens);
  add('output_audio_tokens', 'output', usage.outputAudioTokens);
  add('output_image_tokens', 'output', usage.outputImageTokens);
  if (price.extraRatios.output_text_tokens !== undefined) {
    const text =
      usage.outputTokens - usage.reasoningTokens - usage.outputAudioTokens - usage.outputImageTokens;
    add('output_text_tokens', 'output', Math.max(0, text));
  }
  return list;
}

function sideRatios(price: ModelPrice, groupRatio: number) {
  assertCount('groupRatio', groupRatio);
  return { inputRatio: price.input * groupRatio, outputRatio: price.output * groupRatio };
}

/**
 * Tokens pricing: ceil(input x inputRatio + output x outputRatio + adjustments), where each special
 * kind adds tokens x (ratio - 1) x its side's ratio (so ratio 1 changes nothing, 0.1 bills a cached
 * token at a tenth). No tokens at all bills 0; otherwise a non-zero price bills at least 1.
 */
export function tokensQuota(price: ModelPrice, groupRatio: number, usage: Usage): QuotaBreakdown {
  const { inputRatio, outputRatio } = sideRatios(price, groupRatio);
  assertCount('inputTokens', usage.inputTokens);
  assertCount('outputTokens', usage.outputTokens);
  const extras = extraCharges(price, usage);
  let exact = usage.inputTokens * inputRatio + usage.outputTokens * outputRatio;
  for (const e of extras) exact += e.tokens * (e.ratio - 1) * (e.side === 'input' ? inputRatio : outputRatio);
  const used = usage.inputTokens + usage.outputTokens > 0;
  let quota = used ? ceilQuota(exact) : 0;
  let minimumApplied = false;
  if (used && quota < 1 && (inputRatio > 0 || outputRatio > 0)) {
    quota = 1;
    minimumApplied = true;
  }
  return {
    priceType: 'tokens',
    groupRatio,
    inputRatio,
    outputRatio,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    extras,
    calls: 0,
    exact,
    quota,
    minimumApplied,
  };
}

/** Quota of one call at a `times` price: round(1000 x input x groupRatio), at least 1 when non-zero. */
function perCallQuota(price: ModelPrice, groupRatio: number) {
  const exact = 1000 * price.input * groupRatio;
  const rounded = Math.max(0, Math.round(trimNoise(exact)));
  const minimumApplied = exact > 0 && rounded === 0;
  return { exact, quota: minimumApplied ? 1 : rounded, minimumApplied };
}

/**
 * Times pricing: round(1000 x price.input x groupRatio) per call, times `calls` (the caller says
 * how many: `n` images, 1 otherwise). Each call is rounded on its own, so n calls cost exactly n
 * times one call.
 */
export function timesQuota(price: ModelPrice, groupRatio: number, calls = 1): QuotaBreakdown {
  const { inputRatio, outputRatio } = sideRatios(price, groupRatio);
  if (!Number.isSafeInteger(calls) || calls < 0) throw new RangeError('calls must be a non-negative integer');
  const one = perCallQuota(price, groupRatio);
  return {
    priceType: 'times',
    groupRatio,
    inputRatio,
    outputRatio,
    inputTokens: 0,
    outputTokens: 0,
    extras: [],
    calls,
    exact: one.exact * calls,
    quota: one.quota * calls,
    minimumApplied: calls > 0 && one.minimumApplied,
  };
}

/** The final cost of a call by its price's type. `calls` only matters for `times` prices. */
export function computeQuota(price: ModelPrice, groupRatio: number, usage: Usage, calls = 1): QuotaBreakdown {
  return price.type === 'times'
    ? timesQuota(price, groupRatio, calls)
    : tokensQuota(price, groupRatio, usage);
}

export interface ReserveInput {
  price: ModelPrice;
  groupRatio: number;
  /** Prompt tokens counted (or estimated) before sending. */
  promptTokens: number;
  /** The request's completion limit (`max_tokens`, `max_completion_tokens`, `max_output_tokens`), if any. */
  maxTokens?: number | undefined;
  /** Completions requested (`n`); multiplies the completion limit. Default 1. */
  n?: number | undefined;
  /** Option `PreConsumedQuota`: the allowance reserved for the reply when its size is unknown. */
  preConsumedQuota: number;
  /** Calls to reserve for at a `times` price. Default 1. */
  calls?: number | undefined;
}

/**
 * How much to reserve before sending. Tokens: the worst case when the request bounds its reply
 * (prompt cost + max_tokens x n x outputRatio, with the dearest output-side kind's ratio when it
 * exceeds 1, e.g. audio replies), else prompt cost + PreConsumedQuota. Times: the full price of the
 * calls. A free price (or a free group) reserves nothing.
 */
export function reserveAmount(input: ReserveInput): number {
  const { price, groupRatio } = input;
  if (price.type === 'times') return timesQuota(price, groupRatio, input.calls ?? 1).quota;
  const { inputRatio, outputRatio } = sideRatios(price, groupRatio);
  if (inputRatio === 0 && outputRatio === 0) return 0;
  assertCount('promptTokens', input.promptTokens);
  assertCount('preConsumedQuota', input.preConsumedQuota);
  const prompt = input.promptTokens * inputRatio;
  const maxTokens = input.maxTokens;
  if (maxTokens !== undefined && maxTokens > 0) {
    const n = input.n !== undefined && input.n > 1 ? input.n : 1;
    const dearest = Math.max(
      1,
      ratioOf(price, 'reasoning_tokens'),
      ratioOf(price, 'output_audio_tokens'),
      ratioOf(price, 'output_image_tokens'),
      price.extraRatios.output_text_tokens ?? 1,
    );
    return ceilQuota(prompt + maxTokens * n * outputRatio * dearest);
  }
  return ceilQuota(prompt + input.preConsumedQuota);
}

/**
 * The breakdown as one-hub's flat log `metadata` keys: `price_type`, `group_ratio`, `input_ratio`,
 * `output_ratio`, and for each kind present `<key>: tokens` and `<key>_ratio: r`.
 */
export function breakdownMetadata(b: QuotaBreakdown): Record<string, string | number> {
  const out: Record<string, string | number> = {
    price_type: b.priceType,
    group_ratio: b.groupRatio,
    input_ratio: b.inputRatio,
    output_ratio: b.outputRatio,
  };
  if (b.priceType === 'times') out.calls = b.calls;
  for (const e of b.extras) {
    out[e.key] = e.tokens;
    out[`${e.key}_ratio`] = e.ratio;
  }
  return out;
}

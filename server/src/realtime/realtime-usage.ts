import { emptyUsage, type Usage } from '../billing/pricing/usage.js';

// The `usage` of a Realtime `response.done` event: `input_tokens`, `output_tokens`,
// `input_token_details.{text,audio,image,cached}_tokens` and `output_token_details.{text,audio}_tokens`.
// Its details are named unlike chat's (`output_token_details`, singular), and its input details carry
// `text_tokens` beside `image_tokens`, which the chat reader takes for an image reply: so it has its
// own reader.

type JsonRecord = Record<string, unknown>;

function isRecord(v: unknown): v is JsonRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.trunc(v) : 0;
}

/** Takes each kind out of what the kinds before it left, so the kinds stay disjoint parts of the total. */
function clamp(total: number, kinds: number[]): number[] {
  let left = total;
  return kinds.map((k) => {
    const taken = Math.min(k, left);
    left -= taken;
    return taken;
  });
}

/** The normalised usage of a Realtime response, or null when it reports no tokens. */
export function fromRealtimeUsage(u: unknown): Usage | null {
  if (!isRecord(u)) return null;
  const input = count(u.input_tokens);
  const output = count(u.output_tokens);
  if (input + output === 0) return null;
  const inDetails = isRecord(u.input_token_details) ? u.input_token_details : {};
  const outDetails = isRecord(u.output_token_details) ? u.output_token_details : {};
  const cachedDetails = isRecord(inDetails.cached_tokens_details)
    ? inDetails.cached_tokens_details
    : undefined;
  const cached = count(inDetails.cached_tokens);
  // Cached audio is billed as cached (the larger discount); the audio kind is the audio not cached.
  const cachedAudio = cachedDetails ? count(cachedDetails.audio_tokens) : 0;
  const cachedImage = cachedDetails ? count(cachedDetails.image_tokens) : 0;
  const audioIn = Math.max(0, count(inDetails.audio_tokens) - cachedAudio);
  const imageIn = Math.max(0, count(inDetails.image_tokens) - cachedImage);
  const [cachedReadTokens = 0, inputAudioTokens = 0, inputImageTokens = 0] = clamp(input, [
    cached,
    audioIn,
    imageIn,
  ]);
  const [outputAudioTokens = 0] = clamp(output, [count(outDetails.audio_tokens)]);
  return {
    ...emptyUsage(),
    inputTokens: input,
    outputTokens: output,
    cachedReadTokens,
    inputAudioTokens,
    inputImageTokens,
    outputAudioTokens,
  };
}

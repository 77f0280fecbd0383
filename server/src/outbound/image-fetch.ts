import type { Dispatcher } from 'undici';
import { OutboundRefused } from './address-policy.js';
import type { OutboundAgent } from './outbound-agent.js';

// Images a client gave by URL, fetched by the gateway where the upstream needs the bytes inline
// (Gemini's inlineData): directly or through the `ChatImageRequestProxy` proxy, or through a
// Cloudflare Worker (`CFWorkerImageUrl`, one-hub's protocol: POST {action, api_key, url}, answered
// {status, message, data (base64), mimeType}). Size-capped, time-limited, under the outbound policy.

export const IMAGE_MAX_BYTES = 20 * 1024 * 1024;
export const IMAGE_TIMEOUT_MS = 15_000;
/** More image URLs than this in one request are refused rather than fetched. */
export const MAX_IMAGE_URLS = 16;

export interface ImageFetchSettings {
  /** `ChatImageRequestProxy`: http://, https:// or socks5:// URL, or empty. */
  proxy: string;
  /** `CFWorkerImageUrl`, or empty. */
  workerUrl: string;
  /** `CFWorkerImageKey`. */
  workerKey: string;
}

export interface FetchedImage {
  mediaType: string;
  /** Base64. */
  data: string;
}

/** An image URL that could not be turned into bytes: the client's request is refused with this. */
export class ImageFetchError extends Error {}

export interface ImageFetcherLimits {
  maxBytes?: number;
  timeoutMs?: number;
}

export class ImageFetcher {
  private readonly maxBytes: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly agent: OutboundAgent,
    limits: ImageFetcherLimits = {},
  ) {
    this.maxBytes = limits.maxBytes ?? IMAGE_MAX_BYTES;
    this.timeoutMs = limits.timeoutMs ?? IMAGE_TIMEOUT_MS;
  }

  async fetch(url: string, settings: ImageFetchSettings): Promise<FetchedImage> {
    const shown = url.length > 200 ? `${url.slice(0, 200)}...` : url;
    try {
      return settings.workerUrl ? await this.throughWorker(url, settings) : await this.direct(url, settings);
    } catch (err) {
      if (err instanceof ImageFetchError)
        throw new ImageFetchError(`The image ${shown} could not be fetched: ${err.message}`);
      // The resolved address stays out of the client's message.
      if (err instanceof OutboundRefused)
        throw new ImageFetchError(
          `The image ${shown} could not be fetched: its address is refused by the gateway's outbound policy`,
        );
      const e = err as { name?: string; code?: string; message?: string };
      const why =
        e.name === 'TimeoutError' || e.name === 'AbortError'
          ? `no answer within ${this.timeoutMs / 1000} s`
          : (e.code ?? e.message ?? 'unreachable');
      throw new ImageFetchError(`The image ${shown} could not be fetched: ${why}`);
    }
  }

  private async direct(url: string, settings: ImageFetchSettings): Promise<FetchedImage> {
    const target = parseHttpUrl(url);
    const res = await this.agent.for({ proxy: settings.proxy }).request({
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method: 'GET',
      headers: { accept: 'image/*', 'accept-encoding': 'identity' },
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (res.statusCode !== 200) {
      discard(res);
      throw new ImageFetchError(`it answered ${res.statusCode}`);
    }
    const bytes = await this.readCapped(res, this.maxBytes);
    const declared =
      String(res.headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim()
        .toLowerCase() ?? '';
    const mediaType = declared.startsWith('image/') ? declared : sniffImageType(bytes);
    if (!mediaType) throw new ImageFetchError(`it is not an image (${declared || 'no content type'})`);
    return { mediaType, data: bytes.toString('base64') };
  }

  private async throughWorker(url: string, settings: ImageFetchSettings): Promise<FetchedImage> {
    parseHttpUrl(url);
    const worker = new URL(settings.workerUrl);
    const res = await this.agent.for({ proxy: settings.proxy }).request({
      origin: worker.origin,
      path: `${worker.pathname}${worker.search}`,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ action: 'base64', api_key: settings.workerKey, url }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    // Base64 is 4/3 of the bytes, plus the JSON around it.
    const raw = await this.readCapped(res, Math.ceil((this.maxBytes * 4) / 3) + 64 * 1024);
    let answer: { status?: unknown; message?: unknown; data?: unknown; mimeType?: unknown };
    try {
      answer = JSON.parse(raw.toString('utf8')) as typeof answer;
    } catch {
      throw new ImageFetchError(`the image worker answered ${res.statusCode} without JSON`);
    }
    if (res.statusCode !== 200 || answer.status === false || typeof answer.data !== 'string') {
      const message = typeof answer.message === 'string' ? answer.message : `status ${res.statusCode}`;
      throw new ImageFetchError(`the image worker refused: ${message.slice(0, 300)}`);
    }
    const data = answer.data.replace(/^data:[^,]*,/, '');
    if (Buffer.byteLength(data, 'base64') > this.maxBytes)
      throw new ImageFetchError(`it is larger than ${this.maxBytes} bytes`);
    const mediaType =
      typeof answer.mimeType === 'string' && answer.mimeType.startsWith('image/')
        ? answer.mimeType
        : sniffImageType(Buffer.from(data.slice(0, 64), 'base64'));
    if (!mediaType) throw new ImageFetchError('the image worker did not return an image');
    return { mediaType, data };
  }

  private async readCapped(res: Dispatcher.ResponseData, max: number): Promise<Buffer> {
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) {
      discard(res);
      throw new ImageFetchError(`it is larger than ${max} bytes`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > max) {
        discard(res);
        throw new ImageFetchError(`it is larger than ${max} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  }
}

/** Drops a reply's body unread; the abort it raises has no reader to go to. */
function discard(res: Dispatcher.ResponseData): void {
  res.body.on('error', () => {});
  res.body.destroy();
}

function parseHttpUrl(url: string): URL {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new ImageFetchError('it is not a URL');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new ImageFetchError('it is not an http(s) URL');
  return target;
}

/** The image type its first bytes name, for servers that send none or a generic one. */
export function sniffImageType(b: Buffer): string | null {
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 6 && b.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (
    b.length >= 12 &&
    b.subarray(0, 4).toString('latin1') === 'RIFF' &&
    b.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp';
  return null;
}

type Json = Record<string, unknown>;

/**
 * An OpenAI chat body with every http(s) `image_url` replaced by a data URL of the fetched image
 * (fetched together). The body is copied where it changes; without image URLs it is returned as is.
 */
export async function inlineImageUrls(
  body: Json,
  fetchImage: (url: string) => Promise<FetchedImage>,
): Promise<Json> {
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  const found: Array<{ message: number; part: number; url: string }> = [];
  messages.forEach((m, i) => {
    const content = (m as Json | null)?.content;
    if (!Array.isArray(content)) return;
    content.forEach((p, j) => {
      const part = p as Json | null;
      if (part?.type !== 'image_url') return;
      const ref = part.image_url;
      const url = typeof ref === 'string' ? ref : (ref as Json | null)?.url;
      if (typeof url === 'string' && /^https?:\/\//i.test(url)) found.push({ message: i, part: j, url });
    });
  });
  if (found.length === 0) return body;
  if (found.length > MAX_IMAGE_URLS)
    throw new ImageFetchError(
      `At most ${MAX_IMAGE_URLS} image URLs can be fetched for one request (got ${found.length})`,
    );
  const images = await Promise.all(found.map((f) => fetchImage(f.url)));
  const copy = messages.map((m) => {
    const content = (m as Json | null)?.content;
    return Array.isArray(content) ? { ...(m as Json), content: [...content] } : m;
  });
  found.forEach((f, k) => {
    const image = images[k] as FetchedImage;
    const content = (copy[f.message] as Json).content as unknown[];
    const part = content[f.part] as Json;
    const ref = part.image_url;
    const detail = typeof ref === 'object' && ref !== null ? (ref as Json).detail : undefined;
    const url = `data:${image.mediaType};base64,${image.data}`;
    content[f.part] = { ...part, image_url: detail === undefined ? { url } : { url, detail } };
  });
  return { ...body, messages: copy };
}

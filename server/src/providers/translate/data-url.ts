// `data:` URLs as OpenAI clients send images and files, and the media type of a plain URL when a
// protocol insists on one.

export interface DataUrl {
  mediaType: string;
  /** The payload, base64-encoded. */
  data: string;
}

/** Splits a `data:[type][;base64],payload` URL; a percent-encoded payload is re-encoded as base64. */
export function parseDataUrl(url: string): DataUrl | null {
  const m = /^data:([^,]*?),/i.exec(url);
  if (!m) return null;
  const meta = (m[1] ?? '').split(';').map((s) => s.trim());
  const isBase64 = meta.some((s) => s.toLowerCase() === 'base64');
  const mediaType = meta[0]?.includes('/') ? meta[0].toLowerCase() : 'text/plain';
  const payload = url.slice(m[0].length);
  if (isBase64) return { mediaType, data: payload.replace(/\s+/g, '') };
  let text: string;
  try {
    text = decodeURIComponent(payload);
  } catch {
    text = payload;
  }
  return { mediaType, data: Buffer.from(text, 'utf8').toString('base64') };
}

export function toDataUrl(mediaType: string, base64: string): string {
  return `data:${mediaType};base64,${base64}`;
}

const TYPES_BY_EXTENSION: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  txt: 'text/plain',
  mp3: 'audio/mp3',
  wav: 'audio/wav',
  mp4: 'video/mp4',
};

/** The media type a URL's file extension suggests, or undefined. */
export function mediaTypeFromUrl(url: string): string | undefined {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return ext ? TYPES_BY_EXTENSION[ext] : undefined;
}

/** OpenAI's `input_audio.format` for an audio media type, or undefined when it has none. */
export function audioFormatOf(mediaType: string): string | undefined {
  const sub = mediaType.split('/')[1]?.toLowerCase();
  if (sub === 'wav' || sub === 'x-wav' || sub === 'wave') return 'wav';
  if (sub === 'mp3' || sub === 'mpeg') return 'mp3';
  return undefined;
}

// What a finished async task produced, read from its provider payload (`data`): Suno's clips (audio
// with cover art and title), Suno's lyrics, Kling's videos and images. Only http(s) addresses are
// kept: the payload comes from an upstream, and a `javascript:` address must never reach an href.

export interface AudioClip {
  url: string;
  cover?: string;
  title?: string;
}

export interface VideoClip {
  url: string;
  cover?: string;
}

export interface TaskMedia {
  audios: AudioClip[];
  videos: VideoClip[];
  images: string[];
  lyrics?: { title: string; text: string };
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function webUrl(v: unknown): string | undefined {
  return typeof v === 'string' && /^https?:\/\//i.test(v.trim()) ? v.trim() : undefined;
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

function addClip(media: TaskMedia, item: Obj): void {
  const cover = webUrl(item.image_large_url) ?? webUrl(item.image_url) ?? webUrl(item.cover_image_url);
  const title = text(item.title);
  const audio = webUrl(item.audio_url);
  if (audio) {
    media.audios.push({ url: audio, ...(cover ? { cover } : {}), ...(title ? { title } : {}) });
    return;
  }
  const video = webUrl(item.video_url);
  if (video) media.videos.push({ url: video, ...(cover ? { cover } : {}) });
}

function addResult(media: TaskMedia, result: Obj): void {
  for (const v of Array.isArray(result.videos) ? result.videos : []) {
    const url = isObj(v) ? webUrl(v.url) : undefined;
    if (url)
      media.videos.push({ url, ...(isObj(v) && webUrl(v.cover_url) ? { cover: webUrl(v.cover_url) } : {}) });
  }
  for (const i of Array.isArray(result.images) ? result.images : []) {
    const url = isObj(i) ? webUrl(i.url) : webUrl(i);
    if (url) media.images.push(url);
  }
}

function walk(media: TaskMedia, data: unknown, depth: number): void {
  if (depth > 3) return;
  if (Array.isArray(data)) {
    for (const item of data) if (isObj(item)) addClip(media, item);
    return;
  }
  if (!isObj(data)) return;
  if (isObj(data.task_result)) addResult(media, data.task_result);
  if (Array.isArray(data.clips)) walk(media, data.clips, depth + 1);
  if (webUrl(data.audio_url) || webUrl(data.video_url)) addClip(media, data);
  const lyrics = text(data.text);
  if (lyrics && !media.lyrics && !webUrl(data.audio_url))
    media.lyrics = { title: text(data.title) ?? '', text: lyrics };
  // Some providers wrap the task in an envelope: {code, message, data: {...}}.
  if ('data' in data) walk(media, data.data, depth + 1);
}

export function taskMedia(data: unknown): TaskMedia {
  const media: TaskMedia = { audios: [], videos: [], images: [] };
  walk(media, data, 0);
  return media;
}

export function hasMedia(m: TaskMedia): boolean {
  return m.audios.length + m.videos.length + m.images.length > 0 || m.lyrics !== undefined;
}

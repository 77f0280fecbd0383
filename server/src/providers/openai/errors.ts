/** An upstream failure in OpenAI's error vocabulary, read by the failure policy (retry, disable). */
export interface UpstreamError {
  status: number;
  message: string;
  type: string;
  code: string | null;
  param: string | null;
}

export type UpstreamErrorFields = Omit<UpstreamError, 'status'>;

/** Upstream messages end up in logs and client errors; a whole HTML page does not belong there. */
export const MAX_ERROR_MESSAGE_LENGTH = 500;

const DEFAULT_TYPE = 'upstream_error';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function text(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

export function truncateMessage(message: string, max = MAX_ERROR_MESSAGE_LENGTH): string {
  const clean = message.replace(/\s+/g, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/**
 * The error fields of a parsed body, or null when it is not an error. Shapes seen from
 * OpenAI-compatible upstreams: `{error:{message,type,code,param}}` (OpenAI, Azure: code may be a
 * number), `{error:"text"}`, `[{error:{...}}]` (Gemini's compatible mode), `{detail:"text"}` or
 * `{detail:[{msg}]}` (FastAPI servers, Jina), `{message, type|code}` (several vendors),
 * and a Responses stream's `{type:"error", code, message}`.
 */
export function errorFromObject(body: unknown): UpstreamErrorFields | null {
  if (Array.isArray(body)) return body.length > 0 ? errorFromObject(body[0]) : null;
  if (!isRecord(body)) return null;
  const e = body.error;
  if (isRecord(e)) {
    const message = text(e.message) ?? text(e.msg) ?? (isRecord(e.error) ? text(e.error.message) : null);
    return {
      message: truncateMessage(message ?? JSON.stringify(e)),
      type: text(e.type) ?? text(e.status) ?? DEFAULT_TYPE,
      code: text(e.code),
      param: text(e.param),
    };
  }
  if (typeof e === 'string' && e) {
    return {
      message: truncateMessage(text(body.message) ?? e),
      type: text(body.type) ?? DEFAULT_TYPE,
      code: text(body.code),
      param: null,
    };
  }
  const detail = body.detail;
  if (typeof detail === 'string')
    return { message: truncateMessage(detail), type: DEFAULT_TYPE, code: null, param: null };
  if (Array.isArray(detail)) {
    const msgs = detail.map((d) => (isRecord(d) ? text(d.msg) : text(d))).filter((m): m is string => !!m);
    if (msgs.length)
      return { message: truncateMessage(msgs.join('; ')), type: DEFAULT_TYPE, code: null, param: null };
  }
  const message = text(body.message);
  if (message && (body.type === 'error' || 'code' in body || 'type' in body || 'status' in body)) {
    return {
      message: truncateMessage(message),
      type: body.type === 'error' ? DEFAULT_TYPE : (text(body.type) ?? DEFAULT_TYPE),
      code: text(body.code),
      param: text(body.param),
    };
  }
  return null;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function htmlToText(html: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.trim();
  const body = html
    .replace(/<(script|style|head)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(#\d+|[a-z]+);/gi, (m, name: string) => {
      if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
      return ENTITIES[name.toLowerCase()] ?? m;
    })
    .replace(/\s+/g, ' ')
    .trim();
  if (title && !body.startsWith(title)) return body ? `${title}: ${body}` : title;
  return body || title || '';
}

function looksLikeHtml(s: string, contentType: string | undefined): boolean {
  return /html/i.test(contentType ?? '') || /^\s*<(!doctype|html|head|body|\?xml)/i.test(s);
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/**
 * Reads a non-2xx upstream reply into an UpstreamError. JSON bodies give their fields; plain text
 * and HTML (proxies, load balancers) give a cleaned, truncated message; an empty body gives the
 * status line.
 */
export function parseUpstreamError(
  status: number,
  body: Buffer | string,
  contentType?: string,
): UpstreamError {
  const raw = typeof body === 'string' ? body : body.toString('utf8');
  const trimmed = raw.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const fields = errorFromObject(JSON.parse(trimmed));
      if (fields) return { status, ...fields };
    } catch {
      // Not JSON after all: treated as text below.
    }
  }
  let message = looksLikeHtml(trimmed, contentType) ? htmlToText(trimmed) : trimmed;
  if (!message)
    message = `upstream returned HTTP ${status}${STATUS_TEXT[status] ? ` ${STATUS_TEXT[status]}` : ''}`;
  return { status, message: truncateMessage(message), type: DEFAULT_TYPE, code: null, param: null };
}

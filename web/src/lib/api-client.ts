import { type Envelope, PRODUCT_VERSION } from '@switchyard/domain';
import { ApiError, showErrorToast } from './api-error';
import { withBase } from './base-path';
import { StorageKey, writeText } from './storage';

// The one client for /api: same-origin fetch with the session cookie, the envelope unwrapped, and the
// global response handler (toasts, and a 401 that ends the client session).

export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  query?: Record<string, QueryValue>;
  body?: unknown;
  signal?: AbortSignal;
  /** The caller tolerates failure (optional endpoints): no toast. A 401 still ends the session. */
  silent?: boolean;
}

type UnauthorizedListener = () => void;
const unauthorizedListeners = new Set<UnauthorizedListener>();

/** The session context subscribes so that any 401 signs the user out of the console. */
export function onUnauthorized(listener: UnauthorizedListener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

export function buildUrl(path: string, query?: Record<string, QueryValue>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null) params.set(key, String(value));
  }
  const qs = params.toString();
  return withBase(path) + (qs ? `?${qs}` : '');
}

export async function request<T>(
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Envelope<T>> {
  try {
    return await send<T>(method, path, options);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) signalUnauthorized();
    if (!options.silent && !isAbort(error)) showErrorToast(error);
    throw error;
  }
}

async function send<T>(method: string, path: string, options: RequestOptions): Promise<Envelope<T>> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  if (options.signal) init.signal = options.signal;
  if (options.body !== undefined) {
    init.headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
    init.body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(buildUrl(path, options.query), init);
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new ApiError(0, error instanceof Error ? error.message : String(error));
  }
  const envelope = await readEnvelope<T>(response);
  if (!response.ok || !envelope.success) {
    throw new ApiError(response.status, envelope.message, envelope.code);
  }
  return envelope;
}

async function readEnvelope<T>(response: Response): Promise<Envelope<T>> {
  const text = await response.text();
  try {
    const parsed: unknown = text ? JSON.parse(text) : null;
    if (typeof parsed === 'object' && parsed !== null && 'success' in parsed) return parsed as Envelope<T>;
  } catch {
    // A proxy's HTML error page or an empty 429 body: the status decides what the user is told.
  }
  return { success: response.ok, message: '' };
}

/** The unwrapped `data` of a successful call. */
export async function api<T>(method: string, path: string, options?: RequestOptions): Promise<T> {
  return (await request<T>(method, path, options)).data as T;
}

export const apiGet = <T>(path: string, options?: RequestOptions) => api<T>('GET', path, options);
export const apiPost = <T>(path: string, body?: unknown, options?: RequestOptions) =>
  api<T>('POST', path, { ...options, body });
export const apiPut = <T>(path: string, body?: unknown, options?: RequestOptions) =>
  api<T>('PUT', path, { ...options, body });

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

function signalUnauthorized(): void {
  writeText(StorageKey.user, null);
  for (const listener of unauthorizedListeners) listener();
}

/** A server that reports another version than this console (v0.0.0 and empty mean "unknown"). */
export function hasNewVersion(serverVersion: unknown, consoleVersion: string = PRODUCT_VERSION): boolean {
  if (typeof serverVersion !== 'string') return false;
  const plain = serverVersion.trim().replace(/^v/i, '');
  if (plain === '' || plain === '0.0.0') return false;
  return plain !== consoleVersion.replace(/^v/i, '');
}

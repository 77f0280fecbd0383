import type { Api } from 'grammy';
import { type Dispatcher, fetch } from 'undici';

/** The part of a fetch call grammY makes for a Bot API method with a JSON payload. */
interface GrammyFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  signal?: { aborted: boolean; addEventListener(type: 'abort', listener: () => void): void } | null;
}

/**
 * The fetch grammY calls the Bot API with: undici's, through the gateway's outbound dispatcher (the
 * same address policy and proxy rules as every other outside call), instead of the node-fetch it
 * bundles. grammY hands over its own AbortSignal polyfill, mirrored here onto a native one.
 */
export function telegramFetch(dispatcher: Dispatcher) {
  return async (url: string | URL, init: GrammyFetchInit = {}) => {
    if (init.body !== undefined && typeof init.body !== 'string') {
      // Only uploads are sent as a stream, and the bot uploads no files.
      throw new Error('the Telegram bot sends JSON payloads only');
    }
    const controller = new AbortController();
    const signal = init.signal;
    if (signal) {
      if (signal.aborted) controller.abort();
      else signal.addEventListener('abort', () => controller.abort());
    }
    const headers = { ...init.headers };
    // undici manages connection reuse itself and refuses some hop-by-hop headers.
    delete headers.connection;
    return fetch(url, {
      method: init.method ?? 'POST',
      headers,
      ...(init.body !== undefined ? { body: init.body as string } : {}),
      signal: controller.signal,
      dispatcher,
    });
  };
}

/**
 * A native AbortSignal where grammY's types want its polyfill's: grammY only calls
 * addEventListener and reads `aborted`, which the native one has.
 */
export function grammySignal(signal: AbortSignal): Parameters<Api['getMe']>[0] {
  return signal as unknown as Parameters<Api['getMe']>[0];
}

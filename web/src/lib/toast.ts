import type { OptionsObject } from 'notistack';

// Toast rules. The toaster (app/toaster.tsx) applies the shared ones: at most three at once,
// duplicates suppressed, bottom-left (bottom-centre up to 600 px).
export const TOAST_MAX = 3;
export const TOAST_AUTO_HIDE_MS = 5000;
export const TOAST_DURATION_MS = {
  error: 5000,
  warning: 10000,
  success: 1500,
  info: 3000,
  notice: 20000,
} as const;

// The toast library (notistack, and goober for its styles) loads with the first toast: no first
// screen shows one, and it would cost every first load about 7 KB and a slow phone's main thread
// about 40 ms. Toasts asked for before the toaster is there wait for it, in order.

export interface ToastRequest {
  message: string;
  options: OptionsObject;
}

export interface ToastSink {
  show: (request: ToastRequest) => void;
  closeAll: () => void;
}

const waiting: ToastRequest[] = [];
let sink: ToastSink | null = null;
const wantListeners = new Set<() => void>();

/** The toaster, once mounted, takes the toasts: first those that waited for it. */
export function attachToaster(next: ToastSink): () => void {
  sink = next;
  for (const request of waiting.splice(0)) next.show(request);
  return () => {
    if (sink === next) sink = null;
  };
}

/** The providers mount the toaster when the first toast is asked for (or at once, if one already was). */
export function onToastWanted(listener: () => void): () => void {
  if (waiting.length > 0) listener();
  wantListeners.add(listener);
  return () => wantListeners.delete(listener);
}

function show(message: string, options: OptionsObject): void {
  const request = { message, options: { preventDuplicate: true, ...options } };
  if (sink) {
    sink.show(request);
    return;
  }
  waiting.push(request);
  for (const listener of wantListeners) listener();
}

export const toast = {
  error: (message: string) => show(message, { variant: 'error', autoHideDuration: TOAST_DURATION_MS.error }),
  warning: (message: string) =>
    show(message, { variant: 'warning', autoHideDuration: TOAST_DURATION_MS.warning }),
  success: (message: string) =>
    show(message, { variant: 'success', autoHideDuration: TOAST_DURATION_MS.success }),
  info: (message: string) => show(message, { variant: 'info', autoHideDuration: TOAST_DURATION_MS.info }),
  notice: (message: string) =>
    show(message, { variant: 'default', autoHideDuration: TOAST_DURATION_MS.notice }),
  /** Copy failures carry the text to copy by hand, so they stay until closed. */
  copy: (message: string) => show(message, { variant: 'error', persist: true }),
  closeAll: () => {
    waiting.length = 0;
    sink?.closeAll();
  },
};

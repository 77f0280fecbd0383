import { closeSnackbar, enqueueSnackbar, type OptionsObject } from 'notistack';

// Toast rules. The provider (app/providers.tsx) applies the shared ones: at most three at once,
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

function show(message: string, options: OptionsObject): void {
  enqueueSnackbar(message, { preventDuplicate: true, ...options });
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
  closeAll: () => closeSnackbar(),
};

import Close from '@mui/icons-material/Close';
import CssBaseline from '@mui/material/CssBaseline';
import IconButton from '@mui/material/IconButton';
import { ThemeProvider } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import { QueryClientProvider } from '@tanstack/react-query';
import { closeSnackbar, SnackbarProvider } from 'notistack';
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppErrorBoundary } from '../features/errors/error-fallback';
import { TOAST_AUTO_HIDE_MS, TOAST_MAX } from '../lib/toast';
import { createQueryClient } from './query-client';
import { SessionProvider, useSession } from './session-context';
import { BREAKPOINTS, createAppTheme } from './theme';

export function AppProviders({ children }: { children: ReactNode }) {
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <ThemedShell>{children}</ThemedShell>
      </SessionProvider>
    </QueryClientProvider>
  );
}

function ThemedShell({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const { themeMode } = useSession();
  const theme = useMemo(() => createAppTheme(themeMode), [themeMode]);
  // Toasts sit bottom-left, bottom-centre on screens up to 600 px wide.
  const phone = useMediaQuery(`(max-width:${BREAKPOINTS.sm}px)`);

  useEffect(() => {
    document.documentElement.dataset.theme = themeMode;
    document.documentElement.style.colorScheme = themeMode;
  }, [themeMode]);

  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      <SnackbarProvider
        maxSnack={TOAST_MAX}
        preventDuplicate
        autoHideDuration={TOAST_AUTO_HIDE_MS}
        anchorOrigin={{ vertical: 'bottom', horizontal: phone ? 'center' : 'left' }}
        action={(key) => (
          <IconButton
            size="small"
            color="inherit"
            aria-label={t('common.close')}
            onClick={() => closeSnackbar(key)}
          >
            <Close fontSize="small" />
          </IconButton>
        )}
      >
        <AppErrorBoundary>{children}</AppErrorBoundary>
      </SnackbarProvider>
    </ThemeProvider>
  );
}

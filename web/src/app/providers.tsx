import CssBaseline from '@mui/material/CssBaseline';
import { ThemeProvider } from '@mui/material/styles';
import { type QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ComponentType, lazy, type ReactNode, Suspense, useEffect, useMemo, useState } from 'react';
import { AppErrorBoundary } from '../features/errors/error-fallback';
import { onToastWanted } from '../lib/toast';
import { SessionProvider, useSession } from './session-context';
import { createAppTheme } from './theme';

// A toaster that cannot load (the server gone) leaves the screen as it is rather than breaking it.
const Toaster = lazy(
  (): Promise<{ default: ComponentType }> => import('./toaster').catch(() => ({ default: () => null })),
);

/** The query client comes from the entry: the router's loaders fill the same cache. */
export function AppProviders({ queryClient, children }: { queryClient: QueryClient; children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <ThemedShell>{children}</ThemedShell>
      </SessionProvider>
    </QueryClientProvider>
  );
}

function ThemedShell({ children }: { children: ReactNode }) {
  const { themeMode } = useSession();
  const theme = useMemo(() => createAppTheme(themeMode), [themeMode]);
  const [toasts, setToasts] = useState(false);

  useEffect(() => {
    document.documentElement.dataset.theme = themeMode;
    document.documentElement.style.colorScheme = themeMode;
  }, [themeMode]);

  useEffect(() => onToastWanted(() => setToasts(true)), []);

  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      <AppErrorBoundary>{children}</AppErrorBoundary>
      {toasts && (
        <Suspense fallback={null}>
          <Toaster />
        </Suspense>
      )}
    </ThemeProvider>
  );
}

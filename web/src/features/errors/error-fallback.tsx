import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useRouteError } from 'react-router';

/** A lazy page whose file is gone (the console was upgraded underneath) or a server that went away. */
export function isChunkLoadError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /dynamically imported module|Importing a module script failed|Failed to fetch|Unable to preload CSS/i.test(
    message,
  );
}

export function ErrorFallback({ error }: { error: unknown }) {
  const { t } = useTranslation();
  const unreachable = isChunkLoadError(error);
  return (
    <Card sx={{ maxWidth: 560, mx: 'auto', my: 6 }} role="alert" data-testid="error-fallback">
      <CardContent>
        <Stack spacing={2}>
          <Typography variant="h6" component="h1">
            {t('errorBoundary.title')}
          </Typography>
          <Typography color="text.secondary">
            {unreachable ? t('errors.unreachableRefresh') : t('errorBoundary.message')}
          </Typography>
          <div>
            <Button variant="contained" onClick={() => window.location.reload()}>
              {t('errorBoundary.reload')}
            </Button>
          </div>
        </Stack>
      </CardContent>
    </Card>
  );
}

/** The router's errorElement: a page that failed to load or to render. */
export function RouteErrorPage() {
  return <ErrorFallback error={useRouteError()} />;
}

/** Catches what the router cannot: a failure in the shell around it. */
export class AppErrorBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error(error, info.componentStack);
  }

  override render() {
    return this.state.error ? <ErrorFallback error={this.state.error} /> : this.props.children;
  }
}

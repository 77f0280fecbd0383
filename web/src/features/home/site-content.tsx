import Box from '@mui/material/Box';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Skeleton from '@mui/material/Skeleton';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { MarkdownContent } from '../../components/markdown-content';
import { isFrameUrl } from '../../lib/frame-url';
import { useSiteContent } from './api';

/** Home and About: an https address shows that page in a frame, other text is markdown. */
export function SiteContent({
  path,
  fallback,
}: {
  path: '/api/home_page_content' | '/api/about';
  fallback: ReactNode;
}) {
  const { t } = useTranslation();
  const { data, isPending } = useSiteContent(path);
  if (isPending) return <Skeleton variant="rounded" height={240} />;
  const content = (data ?? '').trim();
  if (!content) return fallback;
  if (isFrameUrl(content)) {
    return (
      <Box
        component="iframe"
        src={content}
        title={t('frame.title')}
        sx={{ width: '100%', height: 'calc(100vh - 220px)', minHeight: 480, border: 0, borderRadius: 1 }}
        data-testid="site-content-frame"
      />
    );
  }
  return (
    <Card>
      <CardContent>
        <MarkdownContent text={content} data-testid="site-content-markdown" />
      </CardContent>
    </Card>
  );
}

import type { BoxProps } from '@mui/material/Box';
import { lazy, Suspense } from 'react';

interface Props extends Omit<BoxProps, 'children'> {
  /** Markdown (administrators may also write HTML); always sanitised before it reaches the page. */
  text: string;
  /** The text is already HTML (custom footer): sanitise only. */
  html?: boolean;
}

// The Markdown parser and the sanitiser are loaded with the first content that needs them, not with
// every page's first load.
const MarkdownBody = lazy(() => import('./markdown-body'));

export function MarkdownContent(props: Props) {
  return (
    <Suspense fallback={null}>
      <MarkdownBody {...props} />
    </Suspense>
  );
}

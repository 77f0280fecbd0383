import Box, { type BoxProps } from '@mui/material/Box';
import { useMemo } from 'react';
import { renderMarkdown, sanitizeHtml } from '../lib/markdown';

interface Props extends Omit<BoxProps, 'children'> {
  text: string;
  html?: boolean;
}

export default function MarkdownBody({ text, html = false, sx, ...rest }: Props) {
  const content = useMemo(() => (html ? sanitizeHtml(text) : renderMarkdown(text)), [text, html]);
  return (
    <Box
      {...rest}
      sx={[
        {
          overflowWrap: 'anywhere',
          '& img': { maxWidth: '100%' },
          '& a': { color: 'primary.main' },
          '& pre': { overflowX: 'auto', p: 1.5, borderRadius: 1, bgcolor: 'action.hover' },
          '& :first-of-type': { mt: 0 },
        },
        ...(Array.isArray(sx) ? sx : [sx]),
      ]}
      // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised by DOMPurify in lib/markdown.ts
      dangerouslySetInnerHTML={{ __html: content }}
    />
  );
}

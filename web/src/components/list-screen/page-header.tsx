import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useRouteTitle } from '../../app/route-handle';

/** The title of an admin screen (its route title) and, on the right, the screen's own actions. */
export function PageHeader({ actions }: { actions?: ReactNode }) {
  const { t } = useTranslation();
  const title = useRouteTitle();
  return (
    // On a narrow screen the actions go under the title rather than squeeze it to a letter a line.
    <Stack
      direction="row"
      sx={{ mb: 2, alignItems: 'center', justifyContent: 'space-between', gap: 1, flexWrap: 'wrap' }}
    >
      <Typography variant="h5" component="h1" sx={{ flexShrink: 0 }}>
        {title ? t(title) : null}
      </Typography>
      <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
        {actions}
      </Stack>
    </Stack>
  );
}

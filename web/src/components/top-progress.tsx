import LinearProgress from '@mui/material/LinearProgress';
import { useTranslation } from 'react-i18next';

/** The thin bar across the top while a page is being loaded. */
export function TopProgress() {
  const { t } = useTranslation();
  return (
    <LinearProgress
      aria-label={t('common.loading')}
      data-testid="top-progress"
      sx={{
        position: 'fixed',
        top: 0,
        left: 0,
        right: 0,
        height: 3,
        zIndex: (theme) => theme.zIndex.tooltip + 1,
      }}
    />
  );
}

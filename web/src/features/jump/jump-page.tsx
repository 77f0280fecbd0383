import CircularProgress from '@mui/material/CircularProgress';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { jumpTarget } from './jump-target';

export default function JumpPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const target = jumpTarget(params.get('url'), window.location.origin);

  useEffect(() => {
    if (target) window.location.assign(target);
  }, [target]);

  return (
    <Stack spacing={2} sx={{ alignItems: 'center', py: 10 }} data-testid="jump">
      {target ? (
        <>
          <CircularProgress />
          <Typography>{t('jump.redirecting')}</Typography>
          <Link href={target}>{t('jump.manual')}</Link>
        </>
      ) : (
        <Typography color="error">{t('jump.invalid')}</Typography>
      )}
    </Stack>
  );
}

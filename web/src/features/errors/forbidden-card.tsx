import LockOutlined from '@mui/icons-material/LockOutlined';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';

/** Shown instead of an administrators' screen; the server refuses the data anyway. */
export function ForbiddenCard() {
  const { t } = useTranslation();
  return (
    <Card data-testid="forbidden">
      <CardContent>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
          <LockOutlined color="warning" />
          <Typography>{t('forbidden.message')}</Typography>
        </Stack>
      </CardContent>
    </Card>
  );
}

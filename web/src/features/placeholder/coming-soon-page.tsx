import ConstructionOutlined from '@mui/icons-material/ConstructionOutlined';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';
import { useRouteTitle } from '../../app/route-handle';

/** Stands in for a screen that a later issue delivers; the route and its menu entry already exist. */
export default function ComingSoonPage() {
  const { t } = useTranslation();
  const title = useRouteTitle();
  return (
    <Card data-testid="coming-soon">
      <CardContent>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
          <ConstructionOutlined color="primary" fontSize="large" />
          <div>
            {title && (
              <Typography variant="h5" component="h1" gutterBottom>
                {t(title)}
              </Typography>
            )}
            <Typography color="text.secondary">{t('comingSoon.message')}</Typography>
          </div>
        </Stack>
      </CardContent>
    </Card>
  );
}

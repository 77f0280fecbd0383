import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';
import { SiteContent } from './site-content';

export default function AboutPage() {
  const { t } = useTranslation();
  return (
    <SiteContent
      path="/api/about"
      fallback={
        <Card data-testid="about-empty">
          <CardContent>
            <Typography variant="h5" component="h1" gutterBottom>
              {t('about.title')}
            </Typography>
            <Typography color="text.secondary">{t('about.empty')}</Typography>
          </CardContent>
        </Card>
      }
    />
  );
}

import AccountBalanceWalletOutlined from '@mui/icons-material/AccountBalanceWalletOutlined';
import HubOutlined from '@mui/icons-material/HubOutlined';
import KeyOutlined from '@mui/icons-material/KeyOutlined';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { PANEL_BASE } from '../../app/panel-paths';
import { useSession } from '../../app/session-context';
import type { MessageKey } from '../../i18n/message-key';
import { useSiteInfo } from '../../lib/site-info';
import { SiteContent } from './site-content';

export default function HomePage() {
  return <SiteContent path="/api/home_page_content" fallback={<Landing />} />;
}

const FEATURES: { icon: typeof HubOutlined; title: MessageKey; text: MessageKey }[] = [
  { icon: HubOutlined, title: 'home.features.providersTitle', text: 'home.features.providersText' },
  { icon: AccountBalanceWalletOutlined, title: 'home.features.quotaTitle', text: 'home.features.quotaText' },
  { icon: KeyOutlined, title: 'home.features.tokensTitle', text: 'home.features.tokensText' },
];

/** The built-in landing page, used while the administrator has set no home page content. */
function Landing() {
  const { t } = useTranslation();
  const { user } = useSession();
  const site = useSiteInfo();
  return (
    <Stack spacing={6} sx={{ py: { xs: 4, md: 8 } }} data-testid="landing">
      <Box sx={{ textAlign: 'center', maxWidth: 760, mx: 'auto' }}>
        <Typography variant="h3" component="h1" sx={{ fontWeight: 800, mb: 2 }}>
          {site.system_name || t('app.name')}
        </Typography>
        <Typography variant="h5" color="primary" sx={{ mb: 2 }}>
          {t('home.tagline')}
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 4 }}>
          {t('home.intro')}
        </Typography>
        <Button variant="contained" size="large" component={RouterLink} to={user ? PANEL_BASE : '/login'}>
          {user ? t('nav.console') : t('home.start')}
        </Button>
      </Box>
      <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', md: 'repeat(3, 1fr)' } }}>
        {FEATURES.map(({ icon: Icon, title, text }) => (
          <Card key={title}>
            <CardContent>
              <Icon color="primary" sx={{ fontSize: 36, mb: 1 }} />
              <Typography variant="h6" gutterBottom>
                {t(title)}
              </Typography>
              <Typography color="text.secondary">{t(text)}</Typography>
            </CardContent>
          </Card>
        ))}
      </Box>
    </Stack>
  );
}

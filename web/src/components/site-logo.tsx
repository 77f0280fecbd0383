import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import defaultLogo from '../assets/logo.svg';
import { useSiteInfo } from '../lib/site-info';

/** The site logo (or the default one) with the system name, linking to `to`. */
export function SiteLogo({ to = '/', showName = true }: { to?: string; showName?: boolean }) {
  const { t } = useTranslation();
  const site = useSiteInfo();
  const name = site.system_name || t('app.name');
  return (
    <Box
      component={RouterLink}
      to={to}
      sx={{
        display: 'flex',
        alignItems: 'center',
        gap: 1,
        color: 'inherit',
        textDecoration: 'none',
        minWidth: 0,
      }}
    >
      <Box
        component="img"
        src={site.logo || defaultLogo}
        alt={t('app.logoAlt')}
        sx={{ height: 32, width: 32 }}
      />
      {showName && (
        <Typography variant="h6" noWrap sx={{ fontWeight: 700, fontSize: '1.1rem' }}>
          {name}
        </Typography>
      )}
    </Box>
  );
}

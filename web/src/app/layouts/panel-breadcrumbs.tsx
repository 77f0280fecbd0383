import NavigateNext from '@mui/icons-material/NavigateNext';
import Breadcrumbs from '@mui/material/Breadcrumbs';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useLocation } from 'react-router';
import type { MessageKey } from '../../i18n/message-key';
import { PANEL_HOME } from '../panel-paths';
import { useRouteTitle } from '../route-handle';
import { menu, menuTrail } from '../routes';

/** The crumbs of a panel path: "Dashboard", then the collapse (if any) and the page, from the routes table. */
export function panelCrumbs(pathname: string, routeTitle: MessageKey | undefined): MessageKey[] {
  if (pathname === PANEL_HOME) return ['menu.dashboard'];
  const trail = menuTrail(menu, pathname).filter((entry) => entry.type !== 'group');
  const titles = trail.length > 0 ? trail.map((entry) => entry.title) : routeTitle ? [routeTitle] : [];
  return ['menu.dashboard', ...titles];
}

export function PanelBreadcrumbs() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const crumbs = panelCrumbs(pathname, useRouteTitle());
  return (
    <Breadcrumbs
      aria-label={t('breadcrumbs.label')}
      separator={<NavigateNext fontSize="small" />}
      sx={{ mb: 2 }}
      data-testid="breadcrumbs"
    >
      {crumbs.map((title, i) =>
        i === 0 && crumbs.length > 1 ? (
          <Link key={title} component={RouterLink} to={PANEL_HOME} underline="hover" color="inherit">
            {t(title)}
          </Link>
        ) : (
          <Typography key={title} color={i === crumbs.length - 1 ? 'text.primary' : 'text.secondary'}>
            {t(title)}
          </Typography>
        ),
      )}
    </Breadcrumbs>
  );
}

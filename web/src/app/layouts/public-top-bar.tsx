import MenuIcon from '@mui/icons-material/Menu';
import AppBar from '@mui/material/AppBar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import { useTheme } from '@mui/material/styles';
import Toolbar from '@mui/material/Toolbar';
import useMediaQuery from '@mui/material/useMediaQuery';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { NavLink, Link as RouterLink, useNavigate } from 'react-router';
import { AccountMenu } from '../../components/account-menu';
import { LanguageMenu } from '../../components/language-menu';
import { SiteLogo } from '../../components/site-logo';
import { ThemeToggle } from '../../components/theme-toggle';
import { PANEL_BASE } from '../panel-paths';
import { publicNav } from '../routes';
import { useSession } from '../session-context';
import { LAYOUT } from '../theme';

/** The public top bar; on small screens the links fold into a dropdown. */
export function PublicTopBar() {
  const { t } = useTranslation();
  const { user } = useSession();
  const navigate = useNavigate();
  const theme = useTheme();
  const narrow = useMediaQuery(theme.breakpoints.down('md'));
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const links = publicNav.filter((link) => user || !link.signedInOnly);

  const go = (url: string) => {
    setAnchor(null);
    navigate(url);
  };

  return (
    <AppBar position="sticky" sx={{ borderBottom: 1, borderColor: 'divider', bgcolor: 'background.paper' }}>
      <Toolbar sx={{ width: '100%', maxWidth: LAYOUT.publicContentMaxWidth, mx: 'auto', gap: 1 }}>
        <SiteLogo to="/" />
        <Box sx={{ flexGrow: 1 }} />
        {!narrow &&
          links.map((link) => (
            <Button
              key={link.url}
              component={NavLink}
              to={link.url}
              end
              color="inherit"
              sx={{ '&.active': { color: 'primary.main' } }}
            >
              {t(link.title)}
            </Button>
          ))}
        <ThemeToggle />
        <LanguageMenu />
        {!narrow &&
          (user ? (
            <Button variant="contained" component={RouterLink} to={PANEL_BASE} data-testid="console-button">
              {t('nav.console')}
            </Button>
          ) : (
            <Button variant="contained" component={RouterLink} to="/login" data-testid="login-button">
              {t('nav.login')}
            </Button>
          ))}
        {user && <AccountMenu />}
        {narrow && (
          <>
            <IconButton
              color="inherit"
              aria-label={t('common.openMenu')}
              aria-haspopup="menu"
              onClick={(e) => setAnchor(e.currentTarget)}
              data-testid="public-nav-menu"
            >
              <MenuIcon />
            </IconButton>
            <Menu anchorEl={anchor} open={anchor !== null} onClose={() => setAnchor(null)}>
              {links.map((link) => (
                <MenuItem key={link.url} onClick={() => go(link.url)}>
                  {t(link.title)}
                </MenuItem>
              ))}
              {user ? (
                <MenuItem onClick={() => go(PANEL_BASE)}>{t('nav.console')}</MenuItem>
              ) : (
                <MenuItem onClick={() => go('/login')}>{t('nav.login')}</MenuItem>
              )}
            </Menu>
          </>
        )}
      </Toolbar>
    </AppBar>
  );
}

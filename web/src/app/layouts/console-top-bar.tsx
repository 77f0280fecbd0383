import MenuIcon from '@mui/icons-material/Menu';
import MenuOpen from '@mui/icons-material/MenuOpen';
import NotificationsOutlined from '@mui/icons-material/NotificationsOutlined';
import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import Toolbar from '@mui/material/Toolbar';
import Tooltip from '@mui/material/Tooltip';
import { useTranslation } from 'react-i18next';
import { AccountMenu } from '../../components/account-menu';
import { LanguageMenu } from '../../components/language-menu';
import { SiteLogo } from '../../components/site-logo';
import { ThemeToggle } from '../../components/theme-toggle';
import { useNotice } from '../../features/notice/notice-provider';
import { PANEL_HOME } from '../panel-paths';
import { LAYOUT } from '../theme';

interface Props {
  sidebarOpen: boolean;
  narrow: boolean;
  onToggleSidebar: () => void;
}

/** Logo, sidebar toggle, notice bell, theme toggle, language menu and avatar menu. */
export function ConsoleTopBar({ sidebarOpen, narrow, onToggleSidebar }: Props) {
  const { t } = useTranslation();
  const { openNotice } = useNotice();
  return (
    <Toolbar sx={{ gap: 0.5, px: { xs: 1, sm: 2 } }}>
      <Box
        sx={{
          width: narrow ? 'auto' : LAYOUT.sidebarWidth - 24,
          display: 'flex',
          alignItems: 'center',
          minWidth: 0,
        }}
      >
        <SiteLogo to={PANEL_HOME} showName={!narrow} />
      </Box>
      <Tooltip title={t('topBar.toggleSidebar')}>
        <IconButton
          color="inherit"
          onClick={onToggleSidebar}
          aria-label={t('topBar.toggleSidebar')}
          aria-expanded={sidebarOpen}
          data-testid="sidebar-toggle"
        >
          {sidebarOpen && !narrow ? <MenuOpen /> : <MenuIcon />}
        </IconButton>
      </Tooltip>
      <Box sx={{ flexGrow: 1 }} />
      <Tooltip title={t('topBar.notice')}>
        <IconButton
          color="inherit"
          onClick={openNotice}
          aria-label={t('topBar.notice')}
          data-testid="notice-bell"
        >
          <NotificationsOutlined />
        </IconButton>
      </Tooltip>
      <ThemeToggle />
      <LanguageMenu />
      <AccountMenu />
    </Toolbar>
  );
}

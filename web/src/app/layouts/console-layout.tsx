import AppBar from '@mui/material/AppBar';
import Box from '@mui/material/Box';
import { useTheme } from '@mui/material/styles';
import Toolbar from '@mui/material/Toolbar';
import useMediaQuery from '@mui/material/useMediaQuery';
import { useEffect, useState } from 'react';
import { Outlet } from 'react-router';
import { useSelf } from '../../features/account/api';
import { useSession } from '../session-context';
import { LAYOUT } from '../theme';
import { ConsoleTopBar } from './console-top-bar';
import { PanelBreadcrumbs } from './panel-breadcrumbs';
import { Sidebar } from './sidebar';

/**
 * Refreshes the session's copy of the user from GET /api/user/self. A component of its own, so the
 * answer re-renders nothing but this (the layout around every screen reads none of it).
 */
function SessionRefresh() {
  const { signIn } = useSession();
  const self = useSelf();
  useEffect(() => {
    if (self.data) signIn(self.data);
  }, [self.data, signIn]);
  return null;
}

export function ConsoleLayout() {
  const theme = useTheme();
  const narrow = useMediaQuery(theme.breakpoints.down('md'));
  const { sidebarOpen, setSidebarOpen } = useSession();
  const [drawerOpen, setDrawerOpen] = useState(false);

  // The temporary drawer starts closed whenever the screen becomes narrow.
  useEffect(() => {
    if (narrow) setDrawerOpen(false);
  }, [narrow]);

  const open = narrow ? drawerOpen : sidebarOpen;
  const toggleSidebar = () => {
    if (narrow) {
      setDrawerOpen(!drawerOpen);
      return;
    }
    setSidebarOpen(!sidebarOpen);
    // Charts and grids size themselves on window resize; the content width changes once the sidebar has moved.
    window.setTimeout(() => window.dispatchEvent(new Event('resize')), LAYOUT.resizeAfterMenuChangeMs);
  };
  return (
    <Box sx={{ display: 'flex', minHeight: '100vh', bgcolor: 'background.default' }}>
      <SessionRefresh />
      <AppBar
        position="fixed"
        sx={{
          zIndex: (t) => t.zIndex.drawer + 1,
          bgcolor: 'background.paper',
          borderBottom: 1,
          borderColor: 'divider',
        }}
      >
        <ConsoleTopBar narrow={narrow} sidebarOpen={open} onToggleSidebar={toggleSidebar} />
      </AppBar>
      <Sidebar open={open} temporary={narrow} onClose={() => setDrawerOpen(false)} />
      <Box component="main" sx={{ flexGrow: 1, minWidth: 0 }}>
        <Toolbar />
        <Box sx={{ maxWidth: LAYOUT.contentMaxWidth, mx: 'auto', p: { xs: 2, md: 3 } }}>
          <PanelBreadcrumbs />
          <Outlet />
        </Box>
      </Box>
    </Box>
  );
}

import Box from '@mui/material/Box';
import Card from '@mui/material/Card';
import Chip from '@mui/material/Chip';
import Drawer from '@mui/material/Drawer';
import Toolbar from '@mui/material/Toolbar';
import Typography from '@mui/material/Typography';
import { PRODUCT_VERSION } from '@switchyard/domain';
import { useTranslation } from 'react-i18next';
import { DeferredMount } from '../../components/deferred-mount';
import { UserAvatar } from '../../components/user-avatar';
import { menu, visibleMenu } from '../routes';
import { useSession } from '../session-context';
import { LAYOUT } from '../theme';
import { SidebarMenu } from './sidebar-menu';

interface Props {
  open: boolean;
  /** Below md the sidebar is a temporary drawer over the page. */
  temporary: boolean;
  onClose: () => void;
}

export function Sidebar({ open, temporary, onClose }: Props) {
  const { isAdmin } = useSession();
  const content = (
    <Box
      sx={{
        display: 'flex',
        flexDirection: 'column',
        height: '100%',
        overflowY: 'auto',
        // A long menu scrolls; the welcome card and the version label keep their size.
        '& > *': { flexShrink: 0 },
        '&::-webkit-scrollbar': { width: 6 },
        '&::-webkit-scrollbar-thumb': {
          minHeight: 40,
          maxHeight: 100,
          borderRadius: 3,
          bgcolor: 'action.disabled',
        },
      }}
    >
      <WelcomeCard />
      {/* A screen's worth of buttons: the page they sit beside is drawn first. */}
      <DeferredMount>
        <SidebarMenu items={visibleMenu(menu, isAdmin)} onNavigate={temporary ? onClose : () => {}} />
      </DeferredMount>
      <Box sx={{ flexGrow: 1 }} />
      <Box sx={{ display: 'flex', justifyContent: 'center', py: 2 }}>
        <Chip size="small" variant="outlined" label={PRODUCT_VERSION} data-testid="sidebar-version" />
      </Box>
    </Box>
  );
  const paper = {
    width: LAYOUT.sidebarWidth,
    boxSizing: 'border-box',
    borderRight: 0,
    bgcolor: 'background.paper',
  } as const;

  if (temporary) {
    return (
      <Drawer
        variant="temporary"
        open={open}
        onClose={onClose}
        sx={{ '& .MuiDrawer-paper': paper }}
        data-testid="sidebar"
      >
        {/* The top bar stays above the drawer, so its toggle can close it again. */}
        <Toolbar />
        {content}
      </Drawer>
    );
  }
  return (
    <Box
      component="aside"
      sx={(theme) => ({
        width: open ? LAYOUT.sidebarWidth : 0,
        flexShrink: 0,
        transition: theme.transitions.create('width', { duration: theme.transitions.duration.shorter }),
      })}
    >
      <Drawer variant="persistent" open={open} sx={{ '& .MuiDrawer-paper': paper }} data-testid="sidebar">
        <Toolbar />
        {content}
      </Drawer>
    </Box>
  );
}

/** The welcome card with the avatar and username. */
function WelcomeCard() {
  const { t } = useTranslation();
  const { user } = useSession();
  if (!user) return null;
  return (
    <Card
      sx={{
        m: 1.5,
        p: 1.5,
        display: 'flex',
        alignItems: 'center',
        gap: 1.5,
        bgcolor: 'action.hover',
        border: 0,
      }}
    >
      <UserAvatar user={user} />
      <Box sx={{ minWidth: 0 }}>
        <Typography variant="caption" color="text.secondary">
          {t('sidebar.welcome')}
        </Typography>
        <Typography noWrap sx={{ fontWeight: 600 }} data-testid="welcome-username">
          {user.username}
        </Typography>
      </Box>
    </Card>
  );
}

import LogoutOutlined from '@mui/icons-material/LogoutOutlined';
import SettingsOutlined from '@mui/icons-material/SettingsOutlined';
import Box from '@mui/material/Box';
import Divider from '@mui/material/Divider';
import Drawer from '@mui/material/Drawer';
import IconButton from '@mui/material/IconButton';
import List from '@mui/material/List';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Popover from '@mui/material/Popover';
import { useTheme } from '@mui/material/styles';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useSession } from '../app/session-context';
import { LAYOUT } from '../app/theme';
import { UserAvatar } from './user-avatar';

/** "setting" (to /panel/profile) and sign out; a bottom drawer on narrow screens, a popup otherwise. */
export function AccountMenu() {
  const { t } = useTranslation();
  const { user, signOut } = useSession();
  const navigate = useNavigate();
  const theme = useTheme();
  const narrow = useMediaQuery(theme.breakpoints.down('md'));
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  if (!user) return null;

  const close = () => setAnchor(null);
  const choose = (action: () => void) => () => {
    close();
    action();
  };
  const list = (
    <Box
      sx={{
        width: narrow ? 'auto' : LAYOUT.avatarMenuMaxWidth,
        maxWidth: LAYOUT.avatarMenuMaxWidth,
        mx: 'auto',
      }}
    >
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, p: 2 }}>
        <UserAvatar user={user} />
        <Box sx={{ minWidth: 0 }}>
          <Typography noWrap sx={{ fontWeight: 600 }}>
            {user.display_name || user.username}
          </Typography>
          <Typography noWrap variant="body2" color="text.secondary">
            {user.username}
          </Typography>
        </Box>
      </Box>
      <Divider />
      <List sx={{ p: 1 }}>
        <ListItemButton onClick={choose(() => navigate('/panel/profile'))} data-testid="account-setting">
          <ListItemIcon>
            <SettingsOutlined fontSize="small" />
          </ListItemIcon>
          <ListItemText primary={t('topBar.setting')} />
        </ListItemButton>
        <ListItemButton
          onClick={choose(async () => {
            // Leave the panel first (the home page may still be loading): cleared while still inside
            // the panel, the user would be sent to /login instead of /.
            await navigate('/');
            await signOut();
          })}
          data-testid="account-sign-out"
        >
          <ListItemIcon>
            <LogoutOutlined fontSize="small" />
          </ListItemIcon>
          <ListItemText primary={t('topBar.signOut')} />
        </ListItemButton>
      </List>
    </Box>
  );

  return (
    <>
      <IconButton
        onClick={(e) => setAnchor(e.currentTarget)}
        aria-label={t('topBar.account')}
        aria-haspopup="menu"
        data-testid="account-menu"
        sx={{ p: 0.5 }}
      >
        <UserAvatar user={user} sx={{ width: 34, height: 34 }} />
      </IconButton>
      {narrow ? (
        <Drawer anchor="bottom" open={anchor !== null} onClose={close}>
          {list}
        </Drawer>
      ) : (
        <Popover
          open={anchor !== null}
          anchorEl={anchor}
          onClose={close}
          anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
          transformOrigin={{ vertical: 'top', horizontal: 'right' }}
          slotProps={{ paper: { sx: { mt: 1 } } }}
        >
          {list}
        </Popover>
      )}
    </>
  );
}

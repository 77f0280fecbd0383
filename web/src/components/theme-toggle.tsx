import DarkModeOutlined from '@mui/icons-material/DarkModeOutlined';
import LightModeOutlined from '@mui/icons-material/LightModeOutlined';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';
import { useTranslation } from 'react-i18next';
import { useSession } from '../app/session-context';

export function ThemeToggle() {
  const { t } = useTranslation();
  const { themeMode, toggleTheme } = useSession();
  const label = themeMode === 'light' ? t('topBar.toDark') : t('topBar.toLight');
  return (
    <Tooltip title={label}>
      <IconButton color="inherit" onClick={toggleTheme} aria-label={label} data-testid="theme-toggle">
        {themeMode === 'light' ? <DarkModeOutlined /> : <LightModeOutlined />}
      </IconButton>
    </Tooltip>
  );
}

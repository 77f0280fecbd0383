import TranslateOutlined from '@mui/icons-material/TranslateOutlined';
import IconButton from '@mui/material/IconButton';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import Tooltip from '@mui/material/Tooltip';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { chooseLanguage } from '../i18n';
import { LANGUAGES } from '../i18n/languages';

export function LanguageMenu() {
  const { t, i18n } = useTranslation();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  return (
    <>
      <Tooltip title={t('topBar.language')}>
        <IconButton
          color="inherit"
          aria-label={t('topBar.language')}
          aria-haspopup="menu"
          onClick={(e) => setAnchor(e.currentTarget)}
          data-testid="language-menu"
        >
          <TranslateOutlined />
        </IconButton>
      </Tooltip>
      <Menu anchorEl={anchor} open={anchor !== null} onClose={() => setAnchor(null)}>
        {LANGUAGES.map((language) => (
          <MenuItem
            key={language.code}
            lang={language.htmlLang}
            selected={i18n.language === language.code}
            onClick={() => {
              chooseLanguage(language.code);
              setAnchor(null);
            }}
          >
            {language.label}
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}

import ExpandMore from '@mui/icons-material/ExpandMore';
import Button from '@mui/material/Button';
import ButtonGroup from '@mui/material/ButtonGroup';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import type { ChannelView } from '@switchyard/domain';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/** The test button of one channel: its test model, or one picked from its models. */
export function TestButton({ channel, onTest }: { channel: ChannelView; onTest: (model?: string) => void }) {
  const { t } = useTranslation();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const models = channel.models.filter((m) => !m.endsWith('*'));
  return (
    <>
      <ButtonGroup size="small" variant="outlined">
        <Button onClick={() => onTest()} sx={{ whiteSpace: 'nowrap', minWidth: 0 }}>
          {t('admin.channel.test')}
        </Button>
        <Button
          aria-label={t('admin.channel.testWithModel')}
          sx={{ minWidth: 0, px: 0.5 }}
          onClick={(e) => setAnchor(e.currentTarget)}
          disabled={models.length === 0}
        >
          <ExpandMore fontSize="small" />
        </Button>
      </ButtonGroup>
      <Menu anchorEl={anchor} open={anchor !== null} onClose={() => setAnchor(null)}>
        {models.map((model) => (
          <MenuItem
            key={model}
            dense
            onClick={() => {
              setAnchor(null);
              onTest(model);
            }}
          >
            {model}
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}

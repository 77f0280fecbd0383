import ContentCopy from '@mui/icons-material/ContentCopy';
import IconButton from '@mui/material/IconButton';
import InputAdornment from '@mui/material/InputAdornment';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import { useTranslation } from 'react-i18next';
import { copyText } from '../lib/clipboard';

/**
 * A read-only value with a copy button (invite links, access tokens), saying whether the copy
 * worked.
 */
export function CopyField({
  label,
  value,
  name,
  testId,
}: {
  label: string;
  value: string;
  /** What was copied, for the toast ("复制{{name}}成功！"). */
  name: string;
  testId?: string;
}) {
  const { t } = useTranslation();
  return (
    <TextField
      label={label}
      value={value}
      fullWidth
      size="small"
      slotProps={{
        htmlInput: { readOnly: true, 'data-testid': testId },
        input: {
          endAdornment: (
            <InputAdornment position="end">
              <Tooltip title={t('user.common.copy')}>
                <span>
                  <IconButton
                    aria-label={t('user.common.copy')}
                    edge="end"
                    disabled={!value}
                    onClick={() => void copyText(value, name)}
                  >
                    <ContentCopy fontSize="small" />
                  </IconButton>
                </span>
              </Tooltip>
            </InputAdornment>
          ),
        },
      }}
    />
  );
}

import AddOutlined from '@mui/icons-material/AddOutlined';
import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import Button from '@mui/material/Button';
import FormHelperText from '@mui/material/FormHelperText';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';
import type { KeyValueRow } from './channel-form';

/** Key/value rows edited one pair per line (model mapping, custom headers); saved as a JSON object. */
export function KeyValueRows(props: {
  label: string;
  keyLabel: string;
  valueLabel: string;
  rows: KeyValueRow[];
  onChange: (rows: KeyValueRow[]) => void;
  error?: string | undefined;
  helper?: string;
  testId: string;
}) {
  const { t } = useTranslation();
  const set = (index: number, patch: Partial<KeyValueRow>) =>
    props.onChange(props.rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  return (
    <Stack spacing={1} data-testid={props.testId}>
      <Typography variant="subtitle2">{props.label}</Typography>
      {props.rows.map((row, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their position
        <Stack direction="row" spacing={1} key={index} sx={{ alignItems: 'center' }}>
          <TextField
            size="small"
            label={props.keyLabel}
            value={row.key}
            onChange={(e) => set(index, { key: e.target.value })}
            sx={{ flex: 1 }}
          />
          <TextField
            size="small"
            label={props.valueLabel}
            value={row.value}
            onChange={(e) => set(index, { value: e.target.value })}
            sx={{ flex: 1 }}
          />
          <IconButton
            aria-label={t('admin.common.removeRow')}
            onClick={() => props.onChange(props.rows.filter((_, i) => i !== index))}
          >
            <DeleteOutline />
          </IconButton>
        </Stack>
      ))}
      <div>
        <Button
          size="small"
          startIcon={<AddOutlined />}
          onClick={() => props.onChange([...props.rows, { key: '', value: '' }])}
        >
          {t('admin.common.addRow')}
        </Button>
      </div>
      {(props.error || props.helper) && (
        <FormHelperText error={Boolean(props.error)}>{props.error ?? props.helper}</FormHelperText>
      )}
    </Stack>
  );
}

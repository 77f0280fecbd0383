import FilterAltOffOutlined from '@mui/icons-material/FilterAltOffOutlined';
import Search from '@mui/icons-material/Search';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fromInputTime, toInputTime } from '../logs/log-filters';

export interface TextFilter {
  name: string;
  label: string;
}

/** Text filters plus a submit-time range, applied together; values use the API's names. */
export function TaskFilterBar({
  fields,
  filters,
  onApply,
  onReset,
  extra,
}: {
  fields: readonly TextFilter[];
  filters: Record<string, string>;
  onApply: (next: Record<string, string>) => void;
  onReset: () => void;
  extra?: (draft: Record<string, string>, set: (name: string, value: string) => void) => ReactNode;
}) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<Record<string, string>>(() => ({
    ...filters,
    start_timestamp: toInputTime(filters.start_timestamp ?? ''),
    end_timestamp: toInputTime(filters.end_timestamp ?? ''),
  }));
  const set = (name: string, value: string) => setDraft((d) => ({ ...d, [name]: value }));
  return (
    <Stack
      component="form"
      direction="row"
      useFlexGap
      spacing={1}
      sx={{ flexWrap: 'wrap', alignItems: 'center' }}
      onSubmit={(e) => {
        e.preventDefault();
        onApply({
          ...draft,
          start_timestamp: fromInputTime(draft.start_timestamp ?? ''),
          end_timestamp: fromInputTime(draft.end_timestamp ?? ''),
        });
      }}
    >
      {fields.map((f) => (
        <TextField
          key={f.name}
          size="small"
          label={f.label}
          value={draft[f.name] ?? ''}
          onChange={(e) => set(f.name, e.target.value)}
          sx={{ width: 160 }}
        />
      ))}
      {extra?.(draft, set)}
      {(['start_timestamp', 'end_timestamp'] as const).map((name) => (
        <TextField
          key={name}
          size="small"
          type="datetime-local"
          label={t(name === 'start_timestamp' ? 'user.log.start' : 'user.log.end')}
          value={draft[name] ?? ''}
          onChange={(e) => set(name, e.target.value)}
          slotProps={{ inputLabel: { shrink: true } }}
        />
      ))}
      <Button type="submit" variant="contained" startIcon={<Search />}>
        {t('user.common.search')}
      </Button>
      <Tooltip title={t('user.common.reset')}>
        <IconButton
          aria-label={t('user.common.reset')}
          onClick={() => {
            setDraft({});
            onReset();
          }}
        >
          <FilterAltOffOutlined />
        </IconButton>
      </Tooltip>
    </Stack>
  );
}

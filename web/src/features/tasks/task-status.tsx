import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import LinearProgress from '@mui/material/LinearProgress';
import Typography from '@mui/material/Typography';
import { formatTimestamp, TaskStatus } from '@switchyard/domain';
import { useTranslation } from 'react-i18next';
import type { MessageKey } from '../../i18n/message-key';

const STATUS: Record<
  string,
  { text: MessageKey; color: 'default' | 'info' | 'primary' | 'success' | 'error' }
> = {
  [TaskStatus.NotStart]: { text: 'user.task.statusNotStart', color: 'default' },
  [TaskStatus.Submitted]: { text: 'user.task.statusSubmitted', color: 'info' },
  [TaskStatus.Queued]: { text: 'user.task.statusQueued', color: 'info' },
  [TaskStatus.InProgress]: { text: 'user.task.statusInProgress', color: 'primary' },
  [TaskStatus.Failure]: { text: 'user.task.statusFailure', color: 'error' },
  [TaskStatus.Success]: { text: 'user.task.statusSuccess', color: 'success' },
};

export function TaskStatusChip({ status }: { status: string }) {
  const { t } = useTranslation();
  const known = STATUS[status];
  return (
    <Chip
      size="small"
      variant="outlined"
      color={known?.color ?? 'default'}
      label={known ? t(known.text) : status || t('user.common.unknown')}
    />
  );
}

/** A status's name in the reader's language (the filter's choices). */
export function TaskStatusLabel({ status }: { status: string }) {
  const { t } = useTranslation();
  const known = STATUS[status];
  return <>{known ? t(known.text) : status}</>;
}

/** Progress as a bar and a percentage; accepts "40%" (image tasks) or 40 (async tasks). */
export function TaskProgress({ value }: { value: string | number }) {
  const n = typeof value === 'number' ? value : Number.parseFloat(value);
  const pct = Number.isFinite(n) ? Math.min(100, Math.max(0, n)) : 0;
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, minWidth: 110 }}>
      <LinearProgress variant="determinate" value={pct} sx={{ flex: 1, height: 6, borderRadius: 3 }} />
      <Typography variant="caption">{`${pct}%`}</Typography>
    </Box>
  );
}

/** Seconds between submit and finish, or '—' while unfinished. */
export function elapsed(submit: number, finish: number): string {
  return submit > 0 && finish >= submit ? `${finish - submit}s` : '—';
}

/** A time as date over clock, neither broken: the task tables have many columns to fit. */
export function TimeCell({ seconds }: { seconds: number }) {
  if (!seconds) return <>—</>;
  const [date, clock] = formatTimestamp(seconds).split(' ');
  return (
    <Box component="span" sx={{ display: 'inline-block', whiteSpace: 'nowrap' }}>
      {date}
      <br />
      {clock}
    </Box>
  );
}

/** Short text (an id, a type) kept on one line, cut with an ellipsis past `maxWidth`. */
export function OneLine({ text, maxWidth = 160 }: { text: string; maxWidth?: number }) {
  return (
    <Typography variant="body2" noWrap title={text} sx={{ maxWidth }}>
      {text || '—'}
    </Typography>
  );
}

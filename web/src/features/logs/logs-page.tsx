import FilterAltOffOutlined from '@mui/icons-material/FilterAltOffOutlined';
import InfoOutlined from '@mui/icons-material/InfoOutlined';
import Search from '@mui/icons-material/Search';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControlLabel from '@mui/material/FormControlLabel';
import IconButton from '@mui/material/IconButton';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { formatTimestamp, LogType } from '@switchyard/domain';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../app/session-context';
import { type DataColumn, DataTable, useTableState } from '../../components/data-table';
import type { MessageKey } from '../../i18n/message-key';
import { useQuotaFormat } from '../../lib/quota-format';
import { useLogPage, useLogTotal } from './api';
import {
  ADMIN_LOG_FILTERS,
  fromInputTime,
  type LogFilterName,
  logBreakdown,
  statQuery,
  toInputTime,
  USER_LOG_FILTERS,
} from './log-filters';
import { logText } from './log-text';

interface LogView {
  id: number;
  created_at: number;
  type: number;
  content: string;
  user_id: number;
  username: string;
  token_name: string;
  model_name: string;
  group: string;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  request_time: number;
  first_response_time: number;
  is_stream: boolean;
  source_ip: string;
  metadata: Record<string, unknown>;
  channel_id?: number;
  channel?: { id: number; name: string } | null;
}

const TYPE_TEXT: Record<number, MessageKey> = {
  [LogType.All]: 'user.log.typeAll',
  [LogType.Topup]: 'user.log.typeTopup',
  [LogType.Consume]: 'user.log.typeConsume',
  [LogType.Manage]: 'user.log.typeManage',
  [LogType.System]: 'user.log.typeSystem',
};
const TYPE_COLOR = {
  [LogType.Topup]: 'success',
  [LogType.Consume]: 'primary',
  [LogType.Manage]: 'warning',
  [LogType.System]: 'info',
} as const;

function DetailDialog({ log, onClose, raw }: { log: LogView; onClose: () => void; raw: boolean }) {
  const { t } = useTranslation();
  const formatQuota = useQuotaFormat();
  const b = logBreakdown(log.metadata);
  const rows: [string, string][] = [
    [t('user.log.model'), log.model_name],
    [t('user.log.inputTokens'), String(log.prompt_tokens)],
    [t('user.log.outputTokens'), String(log.completion_tokens)],
    ...b.tokens.map((k): [string, string] => [
      t(`user.log.kinds.${k.kind}`),
      k.ratio === undefined ? String(k.count) : t('user.log.withRatio', { count: k.count, ratio: k.ratio }),
    ]),
    ...(b.priceType ? [[t('user.log.priceType'), b.priceType] as [string, string]] : []),
    ...(b.groupRatio !== undefined
      ? [[t('user.log.groupRatio'), String(b.groupRatio)] as [string, string]]
      : []),
    ...(b.inputRatio !== undefined
      ? [[t('user.log.inputRatio'), String(b.inputRatio)] as [string, string]]
      : []),
    ...(b.outputRatio !== undefined
      ? [[t('user.log.outputRatio'), String(b.outputRatio)] as [string, string]]
      : []),
    [t('user.log.quota'), raw ? String(log.quota) : formatQuota(log.quota)],
    ...(b.shortfall !== undefined
      ? [[t('user.log.shortfall'), String(b.shortfall)] as [string, string]]
      : []),
    ...(b.estimated ? [[t('user.log.estimated'), t('user.log.estimatedYes')] as [string, string]] : []),
    ...(b.clientAborted
      ? [
          [
            t('user.log.clientAborted'),
            b.deliveredOnly ? t('user.log.clientAbortedDelivered') : t('user.log.clientAbortedWhole'),
          ] as [string, string],
        ]
      : []),
    ...(log.content ? [[t('user.log.content'), logText(log, t, formatQuota)] as [string, string]] : []),
  ];
  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{t('user.log.detailTitle')}</DialogTitle>
      <DialogContent>
        <Table size="small" data-testid="log-detail">
          <TableBody>
            {rows.map(([label, value]) => (
              <TableRow key={label}>
                <TableCell sx={{ fontWeight: 600, width: '40%' }}>{label}</TableCell>
                <TableCell sx={{ wordBreak: 'break-word' }}>{value}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('user.common.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}

/** The filter inputs: typed freely, applied together (they land in the URL under the API's names). */
function LogFilterBar({
  admin,
  filters,
  onApply,
  onReset,
}: {
  admin: boolean;
  filters: Record<LogFilterName, string>;
  onApply: (next: Partial<Record<LogFilterName, string>>) => void;
  onReset: () => void;
}) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState(() => ({
    ...filters,
    start_timestamp: toInputTime(filters.start_timestamp),
    end_timestamp: toInputTime(filters.end_timestamp),
  }));
  const field = (name: LogFilterName, label: MessageKey) => (
    <TextField
      size="small"
      label={t(label)}
      value={draft[name] ?? ''}
      onChange={(e) => setDraft((d) => ({ ...d, [name]: e.target.value }))}
      sx={{ width: 160 }}
      slotProps={{ htmlInput: { 'data-testid': `log-filter-${name}` } }}
    />
  );
  const time = (name: 'start_timestamp' | 'end_timestamp', label: MessageKey) => (
    <TextField
      size="small"
      type="datetime-local"
      label={t(label)}
      value={draft[name]}
      onChange={(e) => setDraft((d) => ({ ...d, [name]: e.target.value }))}
      slotProps={{ inputLabel: { shrink: true } }}
    />
  );
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
          start_timestamp: fromInputTime(draft.start_timestamp),
          end_timestamp: fromInputTime(draft.end_timestamp),
        });
      }}
    >
      {field('token_name', 'user.log.token')}
      {field('model_name', 'user.log.model')}
      {time('start_timestamp', 'user.log.start')}
      {time('end_timestamp', 'user.log.end')}
      <TextField
        select
        size="small"
        label={t('user.log.type')}
        value={draft.log_type || '0'}
        onChange={(e) => setDraft((d) => ({ ...d, log_type: e.target.value === '0' ? '' : e.target.value }))}
        sx={{ width: 120 }}
      >
        {Object.entries(TYPE_TEXT).map(([value, label]) => (
          <MenuItem key={value} value={value}>
            {t(label)}
          </MenuItem>
        ))}
      </TextField>
      {admin && field('channel_id', 'user.log.channelId')}
      {admin && field('username', 'user.log.username')}
      {admin && field('source_ip', 'user.log.sourceIp')}
      <Button type="submit" variant="contained" startIcon={<Search />} data-testid="log-search">
        {t('user.common.search')}
      </Button>
      <Tooltip title={t('user.common.reset')}>
        <IconButton
          aria-label={t('user.common.reset')}
          onClick={() => {
            setDraft(
              Object.fromEntries(ADMIN_LOG_FILTERS.map((n) => [n, ''])) as Record<LogFilterName, string>,
            );
            onReset();
          }}
        >
          <FilterAltOffOutlined />
        </IconButton>
      </Tooltip>
    </Stack>
  );
}

/**
 * Logs (/panel/log): own logs for a user, everyone's with channel and user for an
 * administrator; filters, column visibility, raw or currency quota, a detail view and the total
 * consumption of the filter.
 */
export default function LogsPage() {
  const { t } = useTranslation();
  const { isAdmin } = useSession();
  const formatQuota = useQuotaFormat();
  const [raw, setRaw] = useState(false);
  const [detail, setDetail] = useState<LogView | null>(null);
  const table = useTableState({ filters: isAdmin ? ADMIN_LOG_FILTERS : USER_LOG_FILTERS });
  const query = useLogPage<LogView>(isAdmin, table);
  const filters = table.state.filters as Record<LogFilterName, string>;
  const stat = useLogTotal(isAdmin, statQuery(filters, isAdmin));
  // Raw means the exact integer the ledger charged, not the compact k/M form.
  const showQuota = (q: number) => (raw ? String(q) : formatQuota(q));

  const columns: DataColumn<LogView>[] = [
    {
      id: 'time',
      header: t('user.log.time'),
      sortField: 'created_at',
      hideable: false,
      cell: (r) => formatTimestamp(r.created_at),
    },
    ...(isAdmin
      ? [
          {
            id: 'channel',
            header: t('user.log.channel'),
            sortField: 'channel_id',
            cell: (r: LogView) => (r.channel ? `${r.channel.id} ${r.channel.name}` : '—'),
          },
          { id: 'user', header: t('user.log.user'), cell: (r: LogView) => r.username },
        ]
      : []),
    { id: 'group', header: t('user.log.group'), cell: (r) => r.group || '—', hiddenByDefault: true },
    { id: 'token', header: t('user.log.token'), sortField: 'token_name', cell: (r) => r.token_name || '—' },
    {
      id: 'type',
      header: t('user.log.type'),
      sortField: 'type',
      cell: (r) => (
        <Chip
          size="small"
          variant="outlined"
          color={TYPE_COLOR[r.type as keyof typeof TYPE_COLOR] ?? 'default'}
          label={t(TYPE_TEXT[r.type] ?? 'user.common.unknown')}
        />
      ),
    },
    { id: 'model', header: t('user.log.model'), sortField: 'model_name', cell: (r) => r.model_name || '—' },
    {
      id: 'duration',
      header: t('user.log.duration'),
      cell: (r) =>
        r.type === LogType.Consume ? (
          <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
            <span>{t('user.log.seconds', { value: (r.request_time / 1000).toFixed(2) })}</span>
            {r.first_response_time > 0 && (
              <Typography variant="caption" color="text.secondary">
                {t('user.log.firstByte', { value: (r.first_response_time / 1000).toFixed(2) })}
              </Typography>
            )}
            {r.is_stream && <Chip size="small" label={t('user.log.stream')} />}
          </Stack>
        ) : (
          '—'
        ),
    },
    { id: 'input', header: t('user.log.inputTokens'), align: 'right', cell: (r) => r.prompt_tokens || '—' },
    {
      id: 'output',
      header: t('user.log.outputTokens'),
      align: 'right',
      cell: (r) => r.completion_tokens || '—',
    },
    {
      id: 'quota',
      header: t('user.log.quota'),
      align: 'right',
      cell: (r) => <span data-testid={`log-quota-${r.id}`}>{showQuota(r.quota)}</span>,
    },
    ...(isAdmin
      ? [
          {
            id: 'ip',
            header: t('user.log.sourceIp'),
            sortField: 'source_ip',
            cell: (r: LogView) => r.source_ip || '—',
            hiddenByDefault: true,
          },
        ]
      : []),
    {
      id: 'detail',
      header: t('user.log.detail'),
      cell: (r) => {
        const text = logText(r, t, formatQuota);
        return (
          <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center', maxWidth: 320 }}>
            <IconButton
              size="small"
              aria-label={t('user.log.detailTitle')}
              onClick={() => setDetail(r)}
              data-testid={`log-detail-${r.id}`}
            >
              <InfoOutlined fontSize="small" />
            </IconButton>
            <Typography variant="body2" noWrap title={text}>
              {text}
            </Typography>
          </Stack>
        );
      },
    },
  ];

  return (
    <>
      <DataTable
        tableId={isAdmin ? 'admin-logs' : 'user-logs'}
        columns={columns}
        controls={table}
        query={query}
        rowKey={(r) => `${r.id}-${r.created_at}`}
        filterBar={
          <LogFilterBar
            key={JSON.stringify(filters)}
            admin={isAdmin}
            filters={filters}
            onApply={(next) => table.setFilters(next)}
            onReset={() => table.resetFilters()}
          />
        }
        toolbar={
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            <Chip
              color="primary"
              variant="outlined"
              data-testid="log-total"
              label={t('user.log.total', { amount: stat.data ? showQuota(stat.data.quota) : '…' })}
            />
            <FormControlLabel
              control={<Switch size="small" checked={raw} onChange={(e) => setRaw(e.target.checked)} />}
              label={t('user.log.rawQuota')}
            />
          </Stack>
        }
        emptyText={t('user.log.empty')}
      />
      {detail && <DetailDialog log={detail} raw={raw} onClose={() => setDetail(null)} />}
    </>
  );
}

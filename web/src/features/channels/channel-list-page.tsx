import AddOutlined from '@mui/icons-material/AddOutlined';
import ContentCopyOutlined from '@mui/icons-material/ContentCopyOutlined';
import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import DeleteSweepOutlined from '@mui/icons-material/DeleteSweepOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import ExpandMore from '@mui/icons-material/ExpandMore';
import PlayArrowOutlined from '@mui/icons-material/PlayArrowOutlined';
import SyncOutlined from '@mui/icons-material/SyncOutlined';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import ButtonGroup from '@mui/material/ButtonGroup';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import {
  type BalanceUpdateReport,
  ChannelStatus,
  type ChannelView,
  formatTimestamp,
  providers,
  renderQuota,
} from '@switchyard/domain';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConfirm } from '../../components/confirm-dialog';
import {
  type DataColumn,
  DataTable,
  type RowKey,
  useTableQuery,
  useTableState,
} from '../../components/data-table';
import { api, apiGet, apiPost } from '../../lib/api-client';
import { useSiteInfo } from '../../lib/site-info';
import { toast } from '../../lib/toast';
import { PageHeader } from '../admin/page-header';
import { SearchField } from '../admin/search-field';
import { useAdminAction } from '../admin/use-admin-action';
import { announceBalanceReport, BalanceReportDialog } from './balance-report-dialog';
import {
  allChannels,
  CHANNEL_PATH,
  saveChannelNumber,
  TAG_PATH,
  testChannel,
  updateChannel,
  useGroupSymbols,
  useTags,
} from './channel-api';
import { ChannelEditDialog } from './channel-edit-dialog';
import { providerOf } from './channel-form';
import { ChannelStatusChip } from './channel-status';
import { ChannelTagsPanel } from './channel-tags-panel';
import { InlineNumber } from './inline-number';
import { responseTimeColor, type TestProgress, testChannels } from './test-all';

const FILTERS = ['name', 'models', 'test_model', 'key', 'type', 'status', 'group', 'tag'] as const;
const INVALIDATE = [CHANNEL_PATH, `${TAG_PATH}/_all`, TAG_PATH];

/** The test button of one channel: its test model, or one picked from its models (spec §2). */
function TestButton({ channel, onTest }: { channel: ChannelView; onTest: (model?: string) => void }) {
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

export default function ChannelListPage() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const site = useSiteInfo();
  const controls = useTableState({ filters: FILTERS, defaultOrder: '-id' });
  const query = useTableQuery<ChannelView>(CHANNEL_PATH, controls);
  const groups = useGroupSymbols();
  const tags = useTags();
  const [selected, setSelected] = useState<Set<RowKey>>(new Set());
  const [editing, setEditing] = useState<{ open: boolean; id: number | null }>({ open: false, id: null });
  const [progress, setProgress] = useState<TestProgress | null>(null);
  const [confirm, ask] = useConfirm();
  const display = { quotaPerUnit: site.quota_per_unit, displayInCurrency: site.display_in_currency };
  const filters = controls.state.filters;
  const closeEditor = useCallback(() => setEditing({ open: false, id: null }), []);
  const refresh = () => Promise.all(INVALIDATE.map((key) => client.invalidateQueries({ queryKey: [key] })));

  const inline = async (channel: ChannelView, field: 'priority' | 'weight', value: number) => {
    try {
      await saveChannelNumber(channel.id, field, value);
      await client.invalidateQueries({ queryKey: [CHANNEL_PATH] });
    } catch (error) {
      toast.error(
        t(field === 'priority' ? 'admin.channel.error.priorityUpdate' : 'admin.channel.error.weightUpdate'),
      );
      throw error;
    }
  };
  const setStatus = useAdminAction(
    (c: ChannelView) =>
      updateChannel({
        id: c.id,
        status: c.status === ChannelStatus.Enabled ? ChannelStatus.ManuallyDisabled : ChannelStatus.Enabled,
      }),
    { invalidate: INVALIDATE },
  );
  const remove = useAdminAction((id: number) => api('DELETE', `${CHANNEL_PATH}/${id}`), {
    invalidate: INVALIDATE,
    success: t('admin.common.deleted'),
  });
  const copy = useAdminAction((id: number) => apiPost(`${CHANNEL_PATH}/${id}/copy`), {
    invalidate: INVALIDATE,
    success: t('admin.channel.copied'),
  });
  const batchDelete = useAdminAction(
    (ids: number[]) => api<number>('DELETE', `${CHANNEL_PATH}/batch`, { body: { ids } }),
    { invalidate: INVALIDATE, success: (n) => t('admin.channel.deletedCount', { count: n }) },
  );
  const deleteDisabled = useAdminAction(() => api<number>('DELETE', `${CHANNEL_PATH}/disabled`), {
    invalidate: INVALIDATE,
    success: (n) => t('admin.channel.deletedCount', { count: n }),
  });
  const [balanceReport, setBalanceReport] = useState<BalanceUpdateReport | null>(null);
  const updateBalances = useAdminAction(
    async () => {
      const report = await apiGet<BalanceUpdateReport>(`${CHANNEL_PATH}/update_balance`);
      if (announceBalanceReport(report)) setBalanceReport(report);
      return report;
    },
    { invalidate: INVALIDATE, success: false },
  );
  const updateBalance = useAdminAction((id: number) => apiGet(`${CHANNEL_PATH}/update_balance/${id}`), {
    invalidate: INVALIDATE,
    success: t('admin.channel.balancesUpdated'),
  });

  const runTest = async (channel: ChannelView, model?: string) => {
    if (!model && !channel.test_model) {
      toast.warning(t('admin.channel.error.testModelFirst'));
      return;
    }
    try {
      const { answer, message } = await testChannel(channel.id, model);
      if (answer.ok)
        toast.success(t('admin.channel.testPassed', { name: channel.name, time: answer.time.toFixed(2) }));
      else
        toast.error(
          t('admin.channel.testFailed', { name: channel.name, message: message || answer.message }),
        );
    } finally {
      await refresh();
    }
  };

  const testAll = async () => {
    const channels = (await allChannels()).filter((c) => c.status !== ChannelStatus.ManuallyDisabled);
    await testChannels(
      channels.map((c) => c.id),
      async (id) => {
        const channel = channels.find((c) => c.id === id);
        const { answer } = await testChannel(
          id,
          channel?.test_model || channel?.models.find((m) => !m.endsWith('*')),
        );
        return answer.ok;
      },
      setProgress,
    );
    await refresh();
  };

  const columns: DataColumn<ChannelView>[] = [
    { id: 'id', header: t('admin.common.id'), cell: (c) => c.id, sortField: 'id', hideable: false },
    {
      id: 'name',
      header: t('admin.channel.field.name'),
      sortField: 'name',
      hideable: false,
      cell: (c) => (
        <Stack spacing={0.5}>
          <span>{c.name}</span>
          {c.tag && <Chip size="small" variant="outlined" label={c.tag} sx={{ alignSelf: 'flex-start' }} />}
        </Stack>
      ),
    },
    {
      id: 'group',
      header: t('admin.channel.field.group'),
      cell: (c) => (
        <Box sx={{ display: 'flex', gap: 0.5, flexWrap: 'wrap' }}>
          {c.group.map((g) => (
            <Chip key={g} size="small" label={g} />
          ))}
        </Box>
      ),
    },
    {
      id: 'type',
      header: t('admin.channel.field.type'),
      sortField: 'type',
      cell: (c) => providerOf(c.type)?.name ?? c.type,
    },
    {
      id: 'status',
      header: t('admin.channel.field.status'),
      sortField: 'status',
      cell: (c) => (
        <Stack
          sx={{
            alignItems: 'flex-start',
            // "Manually disabled" may take two lines rather than widen the table.
            '& .MuiChip-root': { height: 'auto' },
            '& .MuiChip-label': { whiteSpace: 'normal', py: 0.25 },
          }}
        >
          <Switch
            size="small"
            checked={c.status === ChannelStatus.Enabled}
            onChange={() => setStatus.mutate(c)}
            slotProps={{ input: { 'aria-label': t('admin.channel.toggleStatus', { name: c.name }) } }}
          />
          <ChannelStatusChip status={c.status} />
        </Stack>
      ),
    },
    {
      id: 'response_time',
      header: t('admin.channel.field.responseTime'),
      sortField: 'response_time',
      cell: (c) => (
        <Tooltip
          title={
            c.test_time
              ? t('admin.channel.lastTest', { time: formatTimestamp(c.test_time) })
              : t('admin.channel.neverTested')
          }
        >
          <Chip
            size="small"
            color={responseTimeColor(c.response_time)}
            label={
              c.response_time > 0
                ? t('admin.channel.seconds', { value: (c.response_time / 1000).toFixed(2) })
                : t('admin.channel.notTested')
            }
          />
        </Tooltip>
      ),
    },
    {
      id: 'balance',
      header: t('admin.channel.field.balance'),
      sortField: 'balance',
      cell: (c) => (
        <Stack direction="row" sx={{ alignItems: 'center', gap: 0.5 }}>
          <span>{renderQuota(c.used_quota, display)}</span>
          {providerOf(c.type)?.supportsBalance && (
            <Tooltip title={t('admin.channel.updateBalance')}>
              <Chip
                size="small"
                variant="outlined"
                label={`$${c.balance.toFixed(2)}`}
                onClick={() => updateBalance.mutate(c.id)}
              />
            </Tooltip>
          )}
        </Stack>
      ),
    },
    {
      id: 'priority',
      header: t('admin.channel.field.priority'),
      sortField: 'priority',
      cell: (c) => (
        <InlineNumber
          value={c.priority}
          min={0}
          label={t('admin.channel.priorityOf', { name: c.name })}
          onSave={(v) => inline(c, 'priority', v)}
        />
      ),
    },
    {
      id: 'weight',
      header: t('admin.channel.field.weight'),
      sortField: 'weight',
      // Matters only between channels of one priority: shown from the column menu.
      hiddenByDefault: true,
      cell: (c) => (
        <InlineNumber
          value={c.weight}
          min={1}
          label={t('admin.channel.weightOf', { name: c.name })}
          onSave={(v) => inline(c, 'weight', v)}
        />
      ),
    },
  ];

  const filterBar = (
    <>
      <SearchField
        label={t('admin.channel.field.name')}
        value={filters.name}
        onApply={(v) => controls.setFilters({ name: v })}
        width={160}
      />
      <SearchField
        label={t('admin.channel.field.models')}
        value={filters.models}
        onApply={(v) => controls.setFilters({ models: v })}
        width={160}
      />
      <SearchField
        label={t('admin.channel.field.testModel')}
        value={filters.test_model}
        onApply={(v) => controls.setFilters({ test_model: v })}
        width={160}
      />
      <SearchField
        label={t('admin.channel.field.key')}
        value={filters.key}
        onApply={(v) => controls.setFilters({ key: v })}
        width={160}
      />
      <TextField
        select
        size="small"
        label={t('admin.channel.field.type')}
        value={filters.type}
        onChange={(e) => controls.setFilters({ type: e.target.value })}
        sx={{ width: 160 }}
      >
        <MenuItem value="">{t('admin.common.all')}</MenuItem>
        {providers.map((p) => (
          <MenuItem key={p.id} value={String(p.id)}>
            {p.name}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        select
        size="small"
        label={t('admin.channel.field.status')}
        value={filters.status}
        onChange={(e) => controls.setFilters({ status: e.target.value })}
        sx={{ width: 140 }}
      >
        <MenuItem value="">{t('admin.common.all')}</MenuItem>
        <MenuItem value={String(ChannelStatus.Enabled)}>{t('admin.channel.status.enabled')}</MenuItem>
        <MenuItem value={String(ChannelStatus.ManuallyDisabled)}>
          {t('admin.channel.status.disabled')}
        </MenuItem>
        <MenuItem value={String(ChannelStatus.AutoDisabled)}>
          {t('admin.channel.status.autoDisabled')}
        </MenuItem>
      </TextField>
      <TextField
        select
        size="small"
        label={t('admin.channel.field.group')}
        value={filters.group}
        onChange={(e) => controls.setFilters({ group: e.target.value })}
        sx={{ width: 130 }}
      >
        <MenuItem value="">{t('admin.common.all')}</MenuItem>
        {(groups.data ?? []).map((g) => (
          <MenuItem key={g} value={g}>
            {g}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        select
        size="small"
        label={t('admin.channel.field.tag')}
        value={filters.tag}
        onChange={(e) => controls.setFilters({ tag: e.target.value })}
        sx={{ width: 130 }}
      >
        <MenuItem value="">{t('admin.common.all')}</MenuItem>
        {(tags.data ?? []).map((tag) => (
          <MenuItem key={tag.tag} value={tag.tag}>
            {tag.tag}
          </MenuItem>
        ))}
      </TextField>
      <Button size="small" onClick={controls.resetFilters}>
        {t('table.reset')}
      </Button>
    </>
  );

  const running = progress !== null && progress.done < progress.total;
  return (
    <>
      {confirm}
      <PageHeader
        actions={
          <>
            <Button
              variant="contained"
              startIcon={<AddOutlined />}
              onClick={() => setEditing({ open: true, id: null })}
            >
              {t('admin.channel.create')}
            </Button>
            <Button variant="outlined" startIcon={<PlayArrowOutlined />} onClick={testAll} disabled={running}>
              {t('admin.channel.testAll')}
            </Button>
            <Button
              variant="outlined"
              startIcon={<SyncOutlined />}
              onClick={() => updateBalances.mutate(undefined)}
              disabled={updateBalances.isPending}
            >
              {t('admin.channel.updateBalances')}
            </Button>
            <Button
              variant="outlined"
              color="warning"
              startIcon={<DeleteSweepOutlined />}
              onClick={async () => {
                if (await ask(t('admin.channel.confirmDeleteDisabled'))) deleteDisabled.mutate(undefined);
              }}
            >
              {t('admin.channel.deleteDisabled')}
            </Button>
          </>
        }
      />
      {progress && (
        <Alert
          severity={running ? 'info' : progress.failed.length > 0 ? 'warning' : 'success'}
          onClose={running ? undefined : () => setProgress(null)}
          sx={{ mb: 2 }}
          data-testid="test-all-progress"
        >
          <Typography variant="body2">
            {t('admin.channel.testProgress', {
              done: progress.done,
              total: progress.total,
              failed: progress.failed.length,
            })}
          </Typography>
          <LinearProgress
            variant="determinate"
            value={progress.total === 0 ? 100 : (progress.done / progress.total) * 100}
            sx={{ mt: 1, width: 320 }}
          />
        </Alert>
      )}
      <ChannelTagsPanel />
      <DataTable
        tableId="channels"
        columns={columns}
        controls={controls}
        query={query}
        rowKey={(c) => c.id}
        selection={{ selected, onChange: setSelected }}
        filterBar={filterBar}
        toolbar={
          <Button
            size="small"
            color="error"
            startIcon={<DeleteOutline />}
            onClick={async () => {
              if (selected.size === 0) {
                toast.warning(t('admin.channel.error.selectOne'));
                return;
              }
              if (await ask(t('admin.channel.confirmBatchDelete', { count: selected.size }))) {
                await batchDelete.mutateAsync([...selected].map(Number)).catch(() => undefined);
                setSelected(new Set());
              }
            }}
          >
            {t('admin.channel.batchDelete')}
          </Button>
        }
        rowActions={(c) => (
          <Stack direction="row" sx={{ gap: 0.5, justifyContent: 'flex-end', alignItems: 'center' }}>
            <TestButton channel={c} onTest={(model) => runTest(c, model)} />
            <Tooltip title={t('admin.channel.copy')}>
              <IconButton size="small" aria-label={t('admin.channel.copy')} onClick={() => copy.mutate(c.id)}>
                <ContentCopyOutlined fontSize="small" />
              </IconButton>
            </Tooltip>
            <Tooltip title={t('admin.common.edit')}>
              <IconButton
                size="small"
                aria-label={t('admin.common.edit')}
                onClick={() => setEditing({ open: true, id: c.id })}
              >
                <EditOutlined fontSize="small" />
              </IconButton>
            </Tooltip>
            <Tooltip title={t('admin.common.delete')}>
              <IconButton
                size="small"
                color="error"
                aria-label={t('admin.common.delete')}
                onClick={async () => {
                  if (await ask(t('admin.channel.confirmDelete', { name: c.name }))) remove.mutate(c.id);
                }}
              >
                <DeleteOutline fontSize="small" />
              </IconButton>
            </Tooltip>
          </Stack>
        )}
      />
      <ChannelEditDialog open={editing.open} channelId={editing.id} onClose={closeEditor} />
      <BalanceReportDialog report={balanceReport} onClose={() => setBalanceReport(null)} />
    </>
  );
}

import ContentCopyOutlined from '@mui/icons-material/ContentCopyOutlined';
import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import DeleteSweepOutlined from '@mui/icons-material/DeleteSweepOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import PlayArrowOutlined from '@mui/icons-material/PlayArrowOutlined';
import SyncOutlined from '@mui/icons-material/SyncOutlined';
import Button from '@mui/material/Button';
import { type BalanceUpdateReport, ChannelStatus, type ChannelView } from '@switchyard/domain';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConfirm } from '../../components/confirm-dialog';
import { type RowKey, useTableState } from '../../components/data-table';
import { ListScreen } from '../../components/list-screen';
import { useSiteInfo } from '../../lib/site-info';
import { toast } from '../../lib/toast';
import { useAdminAction } from '../admin/use-admin-action';
import {
  CHANNEL_PATH,
  CHANNEL_QUERIES,
  copyChannel,
  deleteChannel,
  deleteChannels,
  deleteDisabledChannels,
  saveChannelNumber,
  updateBalance,
  updateBalances,
  updateChannel,
  useChannelPage,
  useGroupSymbols,
  useTags,
} from './api';
import { announceBalanceReport, BalanceReportDialog } from './balance-report-dialog';
import { CHANNEL_FILTERS, channelColumns, channelFilters } from './channel-columns';
import { ChannelEditDialog } from './channel-edit-dialog';
import { ChannelTagsPanel } from './channel-tags-panel';
import { TestButton } from './test-button';
import { useChannelTests } from './use-channel-tests';

export default function ChannelListPage() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const site = useSiteInfo();
  const controls = useTableState({ filters: CHANNEL_FILTERS, defaultOrder: '-id' });
  const query = useChannelPage(controls);
  const groups = useGroupSymbols();
  const tags = useTags();
  const [selected, setSelected] = useState<Set<RowKey>>(new Set());
  const [editing, setEditing] = useState<{ open: boolean; id: number | null }>({ open: false, id: null });
  const [balanceReport, setBalanceReport] = useState<BalanceUpdateReport | null>(null);
  const [confirm, ask] = useConfirm();
  const closeEditor = useCallback(() => setEditing({ open: false, id: null }), []);
  const refresh = () =>
    Promise.all(CHANNEL_QUERIES.map((key) => client.invalidateQueries({ queryKey: [key] })));
  const tests = useChannelTests(refresh);
  const invalidate = CHANNEL_QUERIES;

  const setStatus = useAdminAction(
    (c: ChannelView) =>
      updateChannel({
        id: c.id,
        status: c.status === ChannelStatus.Enabled ? ChannelStatus.ManuallyDisabled : ChannelStatus.Enabled,
      }),
    { invalidate },
  );
  const remove = useAdminAction(deleteChannel, { invalidate, success: t('admin.common.deleted') });
  const copy = useAdminAction(copyChannel, { invalidate, success: t('admin.channel.copied') });
  const deletedCount = (n: number) => t('admin.channel.deletedCount', { count: n });
  const batchDelete = useAdminAction(deleteChannels, { invalidate, success: deletedCount });
  const deleteDisabled = useAdminAction(deleteDisabledChannels, { invalidate, success: deletedCount });
  const balances = useAdminAction(
    async () => {
      const report = await updateBalances();
      if (announceBalanceReport(report)) setBalanceReport(report);
      return report;
    },
    { invalidate, success: false },
  );
  const balance = useAdminAction(updateBalance, { invalidate, success: t('admin.channel.balancesUpdated') });

  const saveNumber = async (channel: ChannelView, field: 'priority' | 'weight', value: number) => {
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

  const deleteSelected = async () => {
    if (selected.size === 0) {
      toast.warning(t('admin.channel.error.selectOne'));
      return;
    }
    if (await ask(t('admin.channel.confirmBatchDelete', { count: selected.size }))) {
      await batchDelete.mutateAsync([...selected].map(Number)).catch(() => undefined);
      setSelected(new Set());
    }
  };

  return (
    <ListScreen
      tableId="channels"
      columns={channelColumns(t, {
        toggleStatus: (c) => setStatus.mutate(c),
        updateBalance: (id) => balance.mutate(id),
        saveNumber,
        display: { quotaPerUnit: site.quota_per_unit, displayInCurrency: site.display_in_currency },
      })}
      controls={controls}
      query={query}
      rowKey={(c) => c.id}
      selection={{ selected, onChange: setSelected }}
      create={{ label: t('admin.channel.create'), run: () => setEditing({ open: true, id: null }) }}
      actions={
        <>
          <Button
            variant="outlined"
            startIcon={<PlayArrowOutlined />}
            onClick={tests.testAll}
            disabled={tests.running}
          >
            {t('admin.channel.testAll')}
          </Button>
          <Button
            variant="outlined"
            startIcon={<SyncOutlined />}
            onClick={() => balances.mutate(undefined)}
            disabled={balances.isPending}
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
      banner={
        <>
          {confirm}
          {tests.banner}
          <ChannelTagsPanel />
        </>
      }
      filters={channelFilters(t, groups.data ?? [], tags.data ?? [])}
      moreFilters={
        <Button size="small" onClick={controls.resetFilters}>
          {t('table.reset')}
        </Button>
      }
      toolbar={
        <Button size="small" color="error" startIcon={<DeleteOutline />} onClick={deleteSelected}>
          {t('admin.channel.batchDelete')}
        </Button>
      }
      rowLead={(c) => <TestButton channel={c} onTest={(model) => tests.testOne(c, model)} />}
      rowActions={[
        {
          label: t('admin.channel.copy'),
          icon: <ContentCopyOutlined fontSize="small" />,
          run: (c) => copy.mutate(c.id),
        },
        {
          label: t('admin.common.edit'),
          icon: <EditOutlined fontSize="small" />,
          run: (c) => setEditing({ open: true, id: c.id }),
        },
        {
          label: t('admin.common.delete'),
          icon: <DeleteOutline fontSize="small" />,
          color: 'error',
          confirm: (c) => t('admin.channel.confirmDelete', { name: c.name }),
          run: (c) => remove.mutate(c.id),
        },
      ]}
    >
      <ChannelEditDialog open={editing.open} channelId={editing.id} onClose={closeEditor} />
      <BalanceReportDialog report={balanceReport} onClose={() => setBalanceReport(null)} />
    </ListScreen>
  );
}

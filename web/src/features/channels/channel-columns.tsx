import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import Tooltip from '@mui/material/Tooltip';
import { ChannelStatus, type ChannelView, formatTimestamp, providers, renderQuota } from '@switchyard/domain';
import type { TFunction } from 'i18next';
import type { DataColumn } from '../../components/data-table';
import type { FilterSpec } from '../../components/list-screen';
import type { TagSummary } from './api';
import { providerOf } from './channel-form';
import { ChannelStatusChip } from './channel-status';
import { InlineNumber } from './inline-number';
import { responseTimeColor } from './test-all';

export const CHANNEL_FILTERS = [
  'name',
  'models',
  'test_model',
  'key',
  'type',
  'status',
  'group',
  'tag',
] as const;
type ChannelFilter = (typeof CHANNEL_FILTERS)[number];

/** The filters above the channel list: four searches, then type, status, group and tag. */
export function channelFilters(
  t: TFunction,
  groups: readonly string[],
  tags: readonly TagSummary[],
): FilterSpec<ChannelFilter>[] {
  const all = { value: '', label: t('admin.common.all') };
  const search = (name: ChannelFilter, label: string) =>
    ({ kind: 'search', name, label, width: 160 }) as const;
  return [
    search('name', t('admin.channel.field.name')),
    search('models', t('admin.channel.field.models')),
    search('test_model', t('admin.channel.field.testModel')),
    search('key', t('admin.channel.field.key')),
    {
      kind: 'select',
      name: 'type',
      label: t('admin.channel.field.type'),
      width: 160,
      options: [all, ...providers.map((p) => ({ value: String(p.id), label: p.name }))],
    },
    {
      kind: 'select',
      name: 'status',
      label: t('admin.channel.field.status'),
      width: 140,
      options: [
        all,
        { value: String(ChannelStatus.Enabled), label: t('admin.channel.status.enabled') },
        { value: String(ChannelStatus.ManuallyDisabled), label: t('admin.channel.status.disabled') },
        { value: String(ChannelStatus.AutoDisabled), label: t('admin.channel.status.autoDisabled') },
      ],
    },
    {
      kind: 'select',
      name: 'group',
      label: t('admin.channel.field.group'),
      width: 130,
      options: [all, ...groups.map((g) => ({ value: g, label: g }))],
    },
    {
      kind: 'select',
      name: 'tag',
      label: t('admin.channel.field.tag'),
      width: 130,
      options: [all, ...tags.map((tag) => ({ value: tag.tag, label: tag.tag }))],
    },
  ];
}

export interface ChannelCellActions {
  toggleStatus: (channel: ChannelView) => void;
  updateBalance: (id: number) => void;
  /** Saves a priority or weight typed into its cell; rejects when it was not saved. */
  saveNumber: (channel: ChannelView, field: 'priority' | 'weight', value: number) => Promise<void>;
  display: { quotaPerUnit: number; displayInCurrency: boolean };
}

export function channelColumns(t: TFunction, on: ChannelCellActions): DataColumn<ChannelView>[] {
  return [
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
            onChange={() => on.toggleStatus(c)}
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
          <span>{renderQuota(c.used_quota, on.display)}</span>
          {providerOf(c.type)?.supportsBalance && (
            <Tooltip title={t('admin.channel.updateBalance')}>
              <Chip
                size="small"
                variant="outlined"
                label={`$${c.balance.toFixed(2)}`}
                onClick={() => on.updateBalance(c.id)}
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
          onSave={(v) => on.saveNumber(c, 'priority', v)}
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
          onSave={(v) => on.saveNumber(c, 'weight', v)}
        />
      ),
    },
  ];
}

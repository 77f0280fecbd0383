import DeleteOutlined from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import Chip from '@mui/material/Chip';
import Switch from '@mui/material/Switch';
import {
  DEFAULT_GROUP,
  type UserGroupView,
  userGroupCreateInput,
  userGroupUpdateInput,
} from '@switchyard/domain';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type DataColumn, useTableState } from '../../components/data-table';
import { enabledOptions, ListScreen } from '../../components/list-screen';
import { toast } from '../../lib/toast';
import { FormDialog, type FormValues, num } from '../admin/form-dialog';
import { useAdminAction } from '../admin/use-admin-action';
import {
  deleteUserGroup,
  saveUserGroup,
  setUserGroupEnabled,
  USER_GROUP_QUERIES,
  useUserGroupPage,
} from './api';

export default function UserGroupPage() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const controls = useTableState({ filters: ['name', 'enable'], defaultOrder: 'id' });
  const query = useUserGroupPage(controls);
  const [editing, setEditing] = useState<{ open: boolean; group: UserGroupView | null }>({
    open: false,
    group: null,
  });
  const invalidate = USER_GROUP_QUERIES;
  const toggle = useAdminAction((g: UserGroupView) => setUserGroupEnabled(g, !g.enable), { invalidate });
  const remove = useAdminAction(deleteUserGroup, {
    invalidate,
    success: t('admin.common.deleted'),
  });
  const group = editing.group;
  const initial = useMemo<FormValues>(
    () => ({
      symbol: group?.symbol ?? '',
      name: group?.name ?? '',
      ratio: String(group?.ratio ?? 1),
      api_rate: String(group?.api_rate ?? 600),
      public: group?.public ?? false,
      enable: group?.enable ?? true,
    }),
    [group],
  );

  const columns: DataColumn<UserGroupView>[] = [
    { id: 'id', header: t('admin.common.id'), cell: (g) => g.id, sortField: 'id', hideable: false },
    {
      id: 'symbol',
      header: t('admin.group.field.symbol'),
      cell: (g) => <Chip size="small" label={g.symbol} />,
      sortField: 'symbol',
    },
    { id: 'name', header: t('admin.group.field.name'), cell: (g) => g.name, sortField: 'name' },
    { id: 'ratio', header: t('admin.group.field.ratio'), cell: (g) => g.ratio, sortField: 'ratio' },
    {
      id: 'api_rate',
      header: t('admin.group.field.apiRate'),
      cell: (g) => g.api_rate,
      sortField: 'api_rate',
    },
    {
      id: 'public',
      header: t('admin.group.field.public'),
      sortField: 'public',
      cell: (g) => t(g.public ? 'admin.common.yes' : 'admin.common.no'),
    },
    {
      id: 'enable',
      header: t('admin.group.field.enable'),
      sortField: 'enable',
      cell: (g) => (
        <Switch
          size="small"
          checked={g.enable}
          disabled={g.symbol === DEFAULT_GROUP}
          onChange={() => toggle.mutate(g)}
          slotProps={{ input: { 'aria-label': t('admin.group.toggle', { name: g.symbol }) } }}
        />
      ),
    },
  ];

  return (
    <ListScreen
      tableId="user-groups"
      columns={columns}
      controls={controls}
      query={query}
      rowKey={(g) => g.id}
      create={{ label: t('admin.group.create'), run: () => setEditing({ open: true, group: null }) }}
      filters={[
        { kind: 'search', name: 'name', label: t('admin.group.search') },
        { kind: 'select', name: 'enable', label: t('admin.group.field.enable'), options: enabledOptions(t) },
      ]}
      rowActions={[
        {
          label: t('admin.common.edit'),
          icon: <EditOutlined fontSize="small" />,
          run: (g) => setEditing({ open: true, group: g }),
        },
        {
          label: t('admin.common.delete'),
          icon: <DeleteOutlined fontSize="small" />,
          color: 'error',
          disabled: (g) => g.symbol === DEFAULT_GROUP,
          confirm: (g) => t('admin.group.confirmDelete', { name: g.symbol }),
          run: (g) => remove.mutate(g.id),
        },
      ]}
    >
      <FormDialog<unknown>
        open={editing.open}
        title={t(group ? 'admin.group.editTitle' : 'admin.group.createTitle')}
        initial={initial}
        fields={[
          {
            name: 'symbol',
            label: t('admin.group.field.symbol'),
            required: true,
            disabled: group !== null,
            helper: t('admin.group.symbolHint'),
          },
          { name: 'name', label: t('admin.group.field.name'), required: true },
          {
            name: 'ratio',
            label: t('admin.group.field.ratio'),
            kind: 'number',
            required: true,
            helper: t('admin.group.ratioHint'),
          },
          {
            name: 'api_rate',
            label: t('admin.group.field.apiRate'),
            kind: 'number',
            required: true,
            helper: t('admin.group.apiRateHint'),
          },
          { name: 'public', label: t('admin.group.field.public'), kind: 'bool' },
          {
            name: 'enable',
            label: t('admin.group.field.enable'),
            kind: 'bool',
            disabled: group?.symbol === DEFAULT_GROUP,
          },
        ]}
        toBody={(v) => ({
          ...(group ? { id: group.id } : {}),
          symbol: v.symbol,
          name: v.name,
          ratio: num(v.ratio),
          api_rate: num(v.api_rate),
          public: v.public,
          enable: v.enable,
        })}
        schema={group ? userGroupUpdateInput : userGroupCreateInput}
        submit={async (body) => {
          await saveUserGroup(body, group !== null);
          toast.success(t(group ? 'admin.common.saved' : 'admin.common.created'));
          await Promise.all(invalidate.map((key) => client.invalidateQueries({ queryKey: [key] })));
        }}
        onClose={() => setEditing({ open: false, group: null })}
      />
    </ListScreen>
  );
}

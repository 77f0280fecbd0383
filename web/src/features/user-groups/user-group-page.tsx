import AddOutlined from '@mui/icons-material/AddOutlined';
import DeleteOutlined from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import {
  DEFAULT_GROUP,
  type UserGroupView,
  userGroupCreateInput,
  userGroupUpdateInput,
} from '@switchyard/domain';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConfirm } from '../../components/confirm-dialog';
import { type DataColumn, DataTable, useTableQuery, useTableState } from '../../components/data-table';
import { api, apiPost, apiPut } from '../../lib/api-client';
import { toast } from '../../lib/toast';
import { FormDialog, type FormValues, num } from '../admin/form-dialog';
import { PageHeader } from '../admin/page-header';
import { SearchField } from '../admin/search-field';
import { useAdminAction } from '../admin/use-admin-action';

const PATH = '/api/user_group';

export default function UserGroupPage() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const controls = useTableState({ filters: ['name', 'enable'], defaultOrder: 'id' });
  const query = useTableQuery<UserGroupView>(PATH, controls);
  const [editing, setEditing] = useState<{ open: boolean; group: UserGroupView | null }>({
    open: false,
    group: null,
  });
  const [confirm, ask] = useConfirm();
  const invalidate = [PATH, '/api/group', 'user'];
  const toggle = useAdminAction(
    (g: UserGroupView) => apiPut(`${PATH}/enable/${g.id}`, { enable: !g.enable }),
    { invalidate },
  );
  const remove = useAdminAction((id: number) => api('DELETE', `${PATH}/${id}`), {
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
    <>
      {confirm}
      <PageHeader
        actions={
          <Button
            variant="contained"
            startIcon={<AddOutlined />}
            onClick={() => setEditing({ open: true, group: null })}
          >
            {t('admin.group.create')}
          </Button>
        }
      />
      <DataTable
        tableId="user-groups"
        columns={columns}
        controls={controls}
        query={query}
        rowKey={(g) => g.id}
        filterBar={
          <>
            <SearchField
              label={t('admin.group.search')}
              value={controls.state.filters.name}
              onApply={(name) => controls.setFilters({ name })}
            />
            <TextField
              select
              size="small"
              label={t('admin.group.field.enable')}
              value={controls.state.filters.enable}
              onChange={(e) => controls.setFilters({ enable: e.target.value })}
              sx={{ width: 120 }}
            >
              <MenuItem value="">{t('admin.common.all')}</MenuItem>
              <MenuItem value="1">{t('admin.common.enabled')}</MenuItem>
              <MenuItem value="0">{t('admin.common.disabled')}</MenuItem>
            </TextField>
          </>
        }
        rowActions={(g) => (
          <Stack direction="row" sx={{ gap: 0.5, justifyContent: 'flex-end' }}>
            <Tooltip title={t('admin.common.edit')}>
              <IconButton
                size="small"
                aria-label={t('admin.common.edit')}
                onClick={() => setEditing({ open: true, group: g })}
              >
                <EditOutlined fontSize="small" />
              </IconButton>
            </Tooltip>
            <Tooltip title={t('admin.common.delete')}>
              <span>
                <IconButton
                  size="small"
                  color="error"
                  disabled={g.symbol === DEFAULT_GROUP}
                  aria-label={t('admin.common.delete')}
                  onClick={async () => {
                    if (await ask(t('admin.group.confirmDelete', { name: g.symbol }))) remove.mutate(g.id);
                  }}
                >
                  <DeleteOutlined fontSize="small" />
                </IconButton>
              </span>
            </Tooltip>
          </Stack>
        )}
      />
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
          if (group) await apiPut(PATH, body);
          else await apiPost(PATH, body);
          toast.success(t(group ? 'admin.common.saved' : 'admin.common.created'));
          await Promise.all(invalidate.map((key) => client.invalidateQueries({ queryKey: [key] })));
        }}
        onClose={() => setEditing({ open: false, group: null })}
      />
    </>
  );
}

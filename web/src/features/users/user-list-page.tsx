import AddOutlined from '@mui/icons-material/AddOutlined';
import ArrowDownwardOutlined from '@mui/icons-material/ArrowDownwardOutlined';
import ArrowUpwardOutlined from '@mui/icons-material/ArrowUpwardOutlined';
import DeleteOutlined from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import PaidOutlined from '@mui/icons-material/PaidOutlined';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import {
  formatTimestamp,
  Role,
  renderNumber,
  renderQuota,
  type UserAdminView,
  UserStatus,
} from '@switchyard/domain';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConfirm } from '../../components/confirm-dialog';
import { type DataColumn, DataTable, useTableQuery, useTableState } from '../../components/data-table';
import { api, apiPost } from '../../lib/api-client';
import { useSiteInfo } from '../../lib/site-info';
import { PageHeader } from '../admin/page-header';
import { SearchField } from '../admin/search-field';
import { useAdminAction } from '../admin/use-admin-action';
import { USER_PATH, UserEditDialog, UserQuotaDialog } from './user-dialogs';

const BINDINGS = [
  ['email', 'admin.user.binding.email'],
  ['github_id', 'admin.user.binding.github'],
  ['wechat_id', 'admin.user.binding.wechat'],
  ['lark_id', 'admin.user.binding.lark'],
  ['oidc_id', 'admin.user.binding.oidc'],
  ['telegram_id', 'admin.user.binding.telegram'],
] as const;

function RoleChip({ role }: { role: number }) {
  const { t } = useTranslation();
  if (role >= Role.Root) return <Chip size="small" color="error" label={t('admin.user.role.root')} />;
  if (role >= Role.Admin) return <Chip size="small" color="warning" label={t('admin.user.role.admin')} />;
  if (role >= Role.Common) return <Chip size="small" label={t('admin.user.role.common')} />;
  return <Chip size="small" variant="outlined" label={t('admin.user.role.unknown')} />;
}

export default function UserListPage() {
  const { t } = useTranslation();
  const site = useSiteInfo();
  const controls = useTableState({ filters: ['keyword'], defaultOrder: '-id' });
  const query = useTableQuery<UserAdminView>(USER_PATH, controls);
  const [editing, setEditing] = useState<{ open: boolean; user: UserAdminView | null }>({
    open: false,
    user: null,
  });
  const [quotaFor, setQuotaFor] = useState<UserAdminView | null>(null);
  const [confirm, ask] = useConfirm();
  const display = { quotaPerUnit: site.quota_per_unit, displayInCurrency: site.display_in_currency };
  const manage = useAdminAction(
    ({ id, action }: { id: number; action: 'enable' | 'disable' | 'promote' | 'demote' }) =>
      apiPost(`${USER_PATH}/manage`, { id, action }),
    { invalidate: [USER_PATH] },
  );
  const remove = useAdminAction((id: number) => api('DELETE', `${USER_PATH}/${id}`), {
    invalidate: [USER_PATH],
    success: t('admin.common.deleted'),
  });

  const columns: DataColumn<UserAdminView>[] = [
    { id: 'id', header: t('admin.common.id'), cell: (u) => u.id, sortField: 'id', hideable: false },
    {
      id: 'username',
      header: t('admin.user.field.username'),
      sortField: 'username',
      hideable: false,
      cell: (u) => (
        <Stack>
          <span>{u.username}</span>
          {u.display_name && (
            <Typography variant="caption" color="text.secondary">
              {u.display_name}
            </Typography>
          )}
        </Stack>
      ),
    },
    { id: 'group', header: t('admin.user.field.group'), cell: (u) => <Chip size="small" label={u.group} /> },
    {
      id: 'quota',
      header: t('admin.user.field.quota'),
      sortField: 'quota',
      cell: (u) => <span data-testid={`user-quota-${u.id}`}>{renderQuota(u.quota, display)}</span>,
    },
    {
      id: 'used_quota',
      header: t('admin.user.field.usedQuota'),
      sortField: 'used_quota',
      cell: (u) => renderQuota(u.used_quota, display),
    },
    {
      id: 'request_count',
      header: t('admin.user.field.requests'),
      sortField: 'request_count',
      cell: (u) => renderNumber(u.request_count),
    },
    {
      id: 'role',
      header: t('admin.user.field.role'),
      sortField: 'role',
      cell: (u) => <RoleChip role={u.role} />,
    },
    {
      id: 'bindings',
      header: t('admin.user.field.bindings'),
      hiddenByDefault: false,
      cell: (u) => (
        <Box sx={{ display: 'flex', gap: 0.5, flexWrap: 'wrap' }}>
          {BINDINGS.filter(([field]) => Boolean(u[field])).map(([field, label]) => (
            // The bound id in the tooltip: it is what the search box finds the user by.
            <Tooltip key={field} title={String(u[field])}>
              <Chip size="small" variant="outlined" label={t(label)} data-testid={`user-binding-${field}`} />
            </Tooltip>
          ))}
        </Box>
      ),
    },
    {
      id: 'status',
      header: t('admin.user.field.status'),
      sortField: 'status',
      cell: (u) => (
        <Switch
          size="small"
          checked={u.status === UserStatus.Enabled}
          disabled={u.role >= Role.Root}
          onChange={() =>
            manage.mutate({ id: u.id, action: u.status === UserStatus.Enabled ? 'disable' : 'enable' })
          }
          slotProps={{ input: { 'aria-label': t('admin.user.toggleStatus', { name: u.username }) } }}
        />
      ),
    },
    {
      id: 'created_time',
      header: t('admin.common.createdTime'),
      sortField: 'created_time',
      hiddenByDefault: true,
      cell: (u) => formatTimestamp(u.created_time),
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
            onClick={() => setEditing({ open: true, user: null })}
          >
            {t('admin.user.create')}
          </Button>
        }
      />
      <DataTable
        tableId="users"
        columns={columns}
        controls={controls}
        query={query}
        rowKey={(u) => u.id}
        filterBar={
          <SearchField
            label={t('admin.user.search')}
            value={controls.state.filters.keyword}
            onApply={(keyword) => controls.setFilters({ keyword })}
            width={260}
          />
        }
        rowActions={(u) =>
          u.role >= Role.Root ? null : (
            <Stack direction="row" sx={{ gap: 0.5, justifyContent: 'flex-end' }}>
              {u.role >= Role.Admin ? (
                <Tooltip title={t('admin.user.demote')}>
                  <IconButton
                    size="small"
                    aria-label={t('admin.user.demote')}
                    onClick={async () => {
                      if (await ask(t('admin.user.confirmDemote', { name: u.username })))
                        manage.mutate({ id: u.id, action: 'demote' });
                    }}
                  >
                    <ArrowDownwardOutlined fontSize="small" />
                  </IconButton>
                </Tooltip>
              ) : (
                <Tooltip title={t('admin.user.promote')}>
                  <IconButton
                    size="small"
                    aria-label={t('admin.user.promote')}
                    onClick={async () => {
                      if (await ask(t('admin.user.confirmPromote', { name: u.username })))
                        manage.mutate({ id: u.id, action: 'promote' });
                    }}
                  >
                    <ArrowUpwardOutlined fontSize="small" />
                  </IconButton>
                </Tooltip>
              )}
              <Tooltip title={t('admin.user.changeQuota')}>
                <IconButton
                  size="small"
                  aria-label={t('admin.user.changeQuota')}
                  onClick={() => setQuotaFor(u)}
                >
                  <PaidOutlined fontSize="small" />
                </IconButton>
              </Tooltip>
              <Tooltip title={t('admin.common.edit')}>
                <IconButton
                  size="small"
                  aria-label={t('admin.common.edit')}
                  onClick={() => setEditing({ open: true, user: u })}
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
                    if (await ask(t('admin.user.confirmDelete', { name: u.username }))) remove.mutate(u.id);
                  }}
                >
                  <DeleteOutlined fontSize="small" />
                </IconButton>
              </Tooltip>
            </Stack>
          )
        }
      />
      <UserEditDialog
        open={editing.open}
        user={editing.user}
        onClose={() => setEditing({ open: false, user: null })}
      />
      <UserQuotaDialog user={quotaFor} onClose={() => setQuotaFor(null)} />
    </>
  );
}

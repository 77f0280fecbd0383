import ArrowDownwardOutlined from '@mui/icons-material/ArrowDownwardOutlined';
import ArrowUpwardOutlined from '@mui/icons-material/ArrowUpwardOutlined';
import DeleteOutlined from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import PaidOutlined from '@mui/icons-material/PaidOutlined';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
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
import { type DataColumn, useTableState } from '../../components/data-table';
import { ListScreen } from '../../components/list-screen';
import { useSiteInfo } from '../../lib/site-info';
import { useAdminAction } from '../admin/use-admin-action';
import { deleteUser, manageUser, USER_PATH, useUserPage } from './api';
import { UserEditDialog, UserQuotaDialog } from './user-dialogs';

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
  const query = useUserPage(controls);
  const [editing, setEditing] = useState<{ open: boolean; user: UserAdminView | null }>({
    open: false,
    user: null,
  });
  const [quotaFor, setQuotaFor] = useState<UserAdminView | null>(null);
  const display = { quotaPerUnit: site.quota_per_unit, displayInCurrency: site.display_in_currency };
  const manage = useAdminAction(manageUser, { invalidate: [USER_PATH] });
  const remove = useAdminAction(deleteUser, {
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

  const isRoot = (u: UserAdminView) => u.role >= Role.Root;
  return (
    <ListScreen
      tableId="users"
      columns={columns}
      controls={controls}
      query={query}
      rowKey={(u) => u.id}
      create={{ label: t('admin.user.create'), run: () => setEditing({ open: true, user: null }) }}
      filters={[{ kind: 'search', name: 'keyword', label: t('admin.user.search'), width: 260 }]}
      rowActions={[
        {
          label: t('admin.user.demote'),
          icon: <ArrowDownwardOutlined fontSize="small" />,
          hidden: (u) => isRoot(u) || u.role < Role.Admin,
          confirm: (u) => t('admin.user.confirmDemote', { name: u.username }),
          run: (u) => manage.mutate({ id: u.id, action: 'demote' }),
        },
        {
          label: t('admin.user.promote'),
          icon: <ArrowUpwardOutlined fontSize="small" />,
          hidden: (u) => u.role >= Role.Admin,
          confirm: (u) => t('admin.user.confirmPromote', { name: u.username }),
          run: (u) => manage.mutate({ id: u.id, action: 'promote' }),
        },
        {
          label: t('admin.user.changeQuota'),
          icon: <PaidOutlined fontSize="small" />,
          hidden: isRoot,
          run: (u) => setQuotaFor(u),
        },
        {
          label: t('admin.common.edit'),
          icon: <EditOutlined fontSize="small" />,
          hidden: isRoot,
          run: (u) => setEditing({ open: true, user: u }),
        },
        {
          label: t('admin.common.delete'),
          icon: <DeleteOutlined fontSize="small" />,
          color: 'error',
          hidden: isRoot,
          confirm: (u) => t('admin.user.confirmDelete', { name: u.username }),
          run: (u) => remove.mutate(u.id),
        },
      ]}
    >
      <UserEditDialog
        open={editing.open}
        user={editing.user}
        onClose={() => setEditing({ open: false, user: null })}
      />
      <UserQuotaDialog user={quotaFor} onClose={() => setQuotaFor(null)} />
    </ListScreen>
  );
}

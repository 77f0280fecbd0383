import AddOutlined from '@mui/icons-material/AddOutlined';
import DeleteOutlined from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import Avatar from '@mui/material/Avatar';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { MODEL_OWNER_MIN_CUSTOM_ID, type ModelOwnerView, modelOwnerInput } from '@switchyard/domain';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConfirm } from '../../components/confirm-dialog';
import { type DataColumn, DataTable, useTableState } from '../../components/data-table';
import { api, apiGet, apiPost, apiPut } from '../../lib/api-client';
import { bundledIcon } from '../../lib/provider-icons';
import { toast } from '../../lib/toast';
import { FormDialog, type FormValues, num } from '../admin/form-dialog';
import { pageLocally } from '../admin/local-page';
import { PageHeader } from '../admin/page-header';
import { SearchField } from '../admin/search-field';
import { useAdminAction } from '../admin/use-admin-action';

const PATH = '/api/model_ownedby';

export default function ModelOwnerPage() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const controls = useTableState({ filters: ['keyword'], defaultOrder: 'id' });
  const owners = useQuery({ queryKey: [PATH], queryFn: () => apiGet<ModelOwnerView[]>(PATH) });
  const keyword = controls.state.filters.keyword.toLowerCase();
  const page = owners.data
    ? pageLocally(
        owners.data,
        controls.state,
        (o) => !keyword || o.name.toLowerCase().includes(keyword) || String(o.id) === keyword,
      )
    : undefined;
  const [editing, setEditing] = useState<{ open: boolean; owner: ModelOwnerView | null }>({
    open: false,
    owner: null,
  });
  const [confirm, ask] = useConfirm();
  const remove = useAdminAction((id: number) => api('DELETE', `${PATH}/${id}`), {
    invalidate: [PATH],
    success: t('admin.common.deleted'),
  });
  const owner = editing.owner;
  const nextId = Math.max(MODEL_OWNER_MIN_CUSTOM_ID, ...(owners.data ?? []).map((o) => o.id + 1));
  const initial = useMemo<FormValues>(
    () => ({ id: String(owner?.id ?? nextId), name: owner?.name ?? '', icon: owner?.icon ?? '' }),
    [owner, nextId],
  );
  const reserved = (o: ModelOwnerView) => o.id < MODEL_OWNER_MIN_CUSTOM_ID;

  const columns: DataColumn<ModelOwnerView>[] = [
    { id: 'id', header: t('admin.common.id'), cell: (o) => o.id, sortField: 'id', hideable: false },
    {
      id: 'icon',
      header: t('admin.owner.field.icon'),
      cell: (o) => (
        <Avatar
          src={bundledIcon(o.icon) ?? (o.icon || undefined)}
          alt={o.name}
          variant="rounded"
          sx={{ width: 28, height: 28, bgcolor: o.icon ? 'transparent' : undefined }}
        >
          {o.name.slice(0, 1)}
        </Avatar>
      ),
    },
    { id: 'name', header: t('admin.owner.field.name'), cell: (o) => o.name, sortField: 'name' },
    {
      id: 'kind',
      header: t('admin.owner.field.kind'),
      cell: (o) => t(reserved(o) ? 'admin.owner.reserved' : 'admin.owner.custom'),
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
            onClick={() => setEditing({ open: true, owner: null })}
          >
            {t('admin.owner.create')}
          </Button>
        }
      />
      <DataTable
        tableId="model-owners"
        columns={columns}
        controls={controls}
        query={{ ...owners, data: page }}
        rowKey={(o) => o.id}
        filterBar={
          <SearchField
            label={t('admin.owner.search')}
            value={controls.state.filters.keyword}
            onApply={(value) => controls.setFilters({ keyword: value })}
          />
        }
        rowActions={(o) =>
          reserved(o) ? null : (
            <Stack direction="row" sx={{ gap: 0.5, justifyContent: 'flex-end' }}>
              <Tooltip title={t('admin.common.edit')}>
                <IconButton
                  size="small"
                  aria-label={t('admin.common.edit')}
                  onClick={() => setEditing({ open: true, owner: o })}
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
                    if (await ask(t('admin.owner.confirmDelete', { name: o.name }))) remove.mutate(o.id);
                  }}
                >
                  <DeleteOutlined fontSize="small" />
                </IconButton>
              </Tooltip>
            </Stack>
          )
        }
      />
      <FormDialog
        open={editing.open}
        title={t(owner ? 'admin.owner.editTitle' : 'admin.owner.createTitle')}
        initial={initial}
        fields={[
          {
            name: 'id',
            label: t('admin.common.id'),
            kind: 'number',
            required: true,
            disabled: owner !== null,
            helper: t('admin.owner.idHint', { min: MODEL_OWNER_MIN_CUSTOM_ID }),
          },
          { name: 'name', label: t('admin.owner.field.name'), required: true },
          { name: 'icon', label: t('admin.owner.field.icon'), helper: t('admin.owner.iconHint') },
        ]}
        toBody={(v) => ({ id: num(v.id), name: v.name, icon: v.icon })}
        schema={modelOwnerInput}
        extra={(v) =>
          typeof v.icon === 'string' && v.icon.trim() !== '' ? (
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
              <Typography variant="body2">{t('admin.common.preview')}</Typography>
              <Avatar
                src={bundledIcon(v.icon) ?? v.icon.trim()}
                alt={String(v.name)}
                variant="rounded"
                data-testid="owner-icon-preview"
              />
            </Stack>
          ) : null
        }
        submit={async (body) => {
          if (owner) await apiPut(PATH, body);
          else await apiPost(PATH, body);
          toast.success(t(owner ? 'admin.common.saved' : 'admin.common.created'));
          await client.invalidateQueries({ queryKey: [PATH] });
          await client.invalidateQueries({ queryKey: ['model_ownedby'] });
        }}
        onClose={() => setEditing({ open: false, owner: null })}
      />
    </>
  );
}

import DeleteOutlined from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import Avatar from '@mui/material/Avatar';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { MODEL_OWNER_MIN_CUSTOM_ID, type ModelOwnerView, modelOwnerInput } from '@switchyard/domain';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type DataColumn, useTableState } from '../../components/data-table';
import { ListScreen } from '../../components/list-screen';
import { bundledIcon } from '../../lib/provider-icons';
import { toast } from '../../lib/toast';
import { FormDialog, type FormValues, num } from '../admin/form-dialog';
import { useAdminAction } from '../admin/use-admin-action';
import {
  deleteModelOwner,
  MODEL_OWNER_PATH,
  MODEL_OWNER_QUERIES,
  saveModelOwner,
  useModelOwnerPage,
} from './api';

export default function ModelOwnerPage() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const controls = useTableState({ filters: ['keyword'], defaultOrder: 'id' });
  const { all, query } = useModelOwnerPage(controls);
  const [editing, setEditing] = useState<{ open: boolean; owner: ModelOwnerView | null }>({
    open: false,
    owner: null,
  });
  const remove = useAdminAction(deleteModelOwner, {
    invalidate: [MODEL_OWNER_PATH],
    success: t('admin.common.deleted'),
  });
  const owner = editing.owner;
  const nextId = Math.max(MODEL_OWNER_MIN_CUSTOM_ID, ...(all ?? []).map((o) => o.id + 1));
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
    <ListScreen
      tableId="model-owners"
      columns={columns}
      controls={controls}
      query={query}
      rowKey={(o) => o.id}
      create={{ label: t('admin.owner.create'), run: () => setEditing({ open: true, owner: null }) }}
      filters={[{ kind: 'search', name: 'keyword', label: t('admin.owner.search') }]}
      rowActions={[
        {
          label: t('admin.common.edit'),
          icon: <EditOutlined fontSize="small" />,
          hidden: reserved,
          run: (o) => setEditing({ open: true, owner: o }),
        },
        {
          label: t('admin.common.delete'),
          icon: <DeleteOutlined fontSize="small" />,
          color: 'error',
          hidden: reserved,
          confirm: (o) => t('admin.owner.confirmDelete', { name: o.name }),
          run: (o) => remove.mutate(o.id),
        },
      ]}
    >
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
          await saveModelOwner(body, owner !== null);
          toast.success(t(owner ? 'admin.common.saved' : 'admin.common.created'));
          await Promise.all(MODEL_OWNER_QUERIES.map((key) => client.invalidateQueries({ queryKey: [key] })));
        }}
        onClose={() => setEditing({ open: false, owner: null })}
      />
    </ListScreen>
  );
}

import ContentCopyOutlined from '@mui/icons-material/ContentCopyOutlined';
import DeleteOutlined from '@mui/icons-material/DeleteOutlined';
import DownloadOutlined from '@mui/icons-material/DownloadOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import {
  formatTimestamp,
  quotaFromCurrency,
  RedemptionStatus,
  type RedemptionView,
  redemptionCreateInput,
  redemptionUpdateInput,
  renderQuota,
} from '@switchyard/domain';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type DataColumn, useTableState } from '../../components/data-table';
import { ListScreen } from '../../components/list-screen';
import { copyText } from '../../lib/clipboard';
import { useSiteInfo } from '../../lib/site-info';
import { toast } from '../../lib/toast';
import { FormDialog, type FormValues, num } from '../admin/form-dialog';
import { useAdminAction } from '../admin/use-admin-action';
import {
  createRedemptions,
  deleteRedemption,
  REDEMPTION_PATH,
  redemptionKey,
  toggleRedemption,
  updateRedemption,
  useRedemptionPage,
} from './api';
import { downloadText } from './download';

function StatusChip({ status }: { status: number }) {
  const { t } = useTranslation();
  if (status === RedemptionStatus.Enabled)
    return (
      <Chip size="small" color="success" variant="outlined" label={t('admin.redemption.status.unused')} />
    );
  if (status === RedemptionStatus.Used)
    return <Chip size="small" label={t('admin.redemption.status.used')} />;
  return (
    <Chip size="small" color="warning" variant="outlined" label={t('admin.redemption.status.disabled')} />
  );
}

/** Codes created in a batch are shown once with their keys, to copy or download. */
function CreatedKeys(props: { name: string; keys: string[]; onClose: () => void }) {
  const { t } = useTranslation();
  const text = props.keys.join('\n');
  return (
    <Dialog open={props.keys.length > 0} onClose={props.onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{t('admin.redemption.createdTitle', { count: props.keys.length })}</DialogTitle>
      <DialogContent>
        <TextField
          value={text}
          multiline
          fullWidth
          minRows={Math.min(10, props.keys.length)}
          slotProps={{ htmlInput: { readOnly: true, 'data-testid': 'created-keys' } }}
          helperText={t('admin.redemption.createdHint')}
        />
      </DialogContent>
      <DialogActions>
        <Button
          startIcon={<ContentCopyOutlined />}
          onClick={() => copyText(text, t('admin.redemption.keys'))}
        >
          {t('common.copy')}
        </Button>
        <Button
          startIcon={<DownloadOutlined />}
          onClick={() => downloadText(`redemptions-${props.name}.txt`, `${text}\n`)}
        >
          {t('admin.common.download')}
        </Button>
        <Button variant="contained" onClick={props.onClose}>
          {t('common.close')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

export default function RedemptionPage() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const site = useSiteInfo();
  const display = { quotaPerUnit: site.quota_per_unit, displayInCurrency: site.display_in_currency };
  const controls = useTableState({ filters: ['keyword', 'status'], defaultOrder: '-id' });
  const query = useRedemptionPage(controls);
  const [editing, setEditing] = useState<{ open: boolean; code: RedemptionView | null }>({
    open: false,
    code: null,
  });
  const [created, setCreated] = useState<{ name: string; keys: string[] }>({ name: '', keys: [] });
  const toggle = useAdminAction(toggleRedemption, { invalidate: [REDEMPTION_PATH] });
  const remove = useAdminAction(deleteRedemption, {
    invalidate: [REDEMPTION_PATH],
    success: t('admin.common.deleted'),
  });
  const code = editing.code;
  const inCurrency = site.display_in_currency;
  const initial = useMemo<FormValues>(
    () => ({
      name: code?.name ?? '',
      amount: code ? String(inCurrency ? code.quota / site.quota_per_unit : code.quota) : '',
      count: '1',
    }),
    [code, inCurrency, site.quota_per_unit],
  );
  const toQuota = (v: string | boolean | undefined) => {
    const n = num(v);
    if (n === undefined || Number.isNaN(n)) return n;
    return inCurrency ? quotaFromCurrency(n, site.quota_per_unit) : n;
  };

  const columns: DataColumn<RedemptionView>[] = [
    { id: 'id', header: t('admin.common.id'), cell: (c) => c.id, sortField: 'id', hideable: false },
    { id: 'name', header: t('admin.common.name'), cell: (c) => c.name, sortField: 'name' },
    {
      id: 'quota',
      header: t('admin.redemption.field.quota'),
      cell: (c) => renderQuota(c.quota, display),
      sortField: 'quota',
    },
    {
      id: 'status',
      header: t('admin.redemption.field.status'),
      sortField: 'status',
      cell: (c) => (
        <Stack direction="row" sx={{ alignItems: 'center' }}>
          {c.status !== RedemptionStatus.Used && (
            <Switch
              size="small"
              checked={c.status === RedemptionStatus.Enabled}
              onChange={() => toggle.mutate(c)}
              slotProps={{ input: { 'aria-label': t('admin.redemption.toggle', { name: c.name }) } }}
            />
          )}
          <StatusChip status={c.status} />
        </Stack>
      ),
    },
    {
      id: 'created_time',
      header: t('admin.common.createdTime'),
      cell: (c) => formatTimestamp(c.created_time),
      sortField: 'created_time',
    },
    {
      id: 'redeemed_time',
      header: t('admin.redemption.field.redeemedTime'),
      cell: (c) => (c.redeemed_time ? formatTimestamp(c.redeemed_time) : t('admin.common.never')),
      sortField: 'redeemed_time',
    },
    { id: 'redeemed_by', header: t('admin.redemption.field.redeemedBy'), cell: (c) => c.redeemed_by || '' },
  ];

  return (
    <ListScreen
      tableId="redemptions"
      columns={columns}
      controls={controls}
      query={query}
      rowKey={(c) => c.id}
      create={{ label: t('admin.redemption.create'), run: () => setEditing({ open: true, code: null }) }}
      filters={[
        { kind: 'search', name: 'keyword', label: t('admin.redemption.search') },
        {
          kind: 'select',
          name: 'status',
          label: t('admin.redemption.field.status'),
          width: 130,
          options: [
            { value: '', label: t('admin.common.all') },
            { value: String(RedemptionStatus.Enabled), label: t('admin.redemption.status.unused') },
            { value: String(RedemptionStatus.Disabled), label: t('admin.redemption.status.disabled') },
            { value: String(RedemptionStatus.Used), label: t('admin.redemption.status.used') },
          ],
        },
      ]}
      rowActions={[
        {
          label: t('admin.redemption.copyKey'),
          icon: <ContentCopyOutlined fontSize="small" />,
          run: async (c) => copyText(await redemptionKey(c.id), t('admin.redemption.keys')),
        },
        {
          label: t('admin.common.edit'),
          icon: <EditOutlined fontSize="small" />,
          hidden: (c) => c.status === RedemptionStatus.Used,
          run: (c) => setEditing({ open: true, code: c }),
        },
        {
          label: t('admin.common.delete'),
          icon: <DeleteOutlined fontSize="small" />,
          color: 'error',
          confirm: (c) => t('admin.redemption.confirmDelete', { name: c.name }),
          run: (c) => remove.mutate(c.id),
        },
      ]}
    >
      <FormDialog<unknown>
        open={editing.open}
        title={t(code ? 'admin.redemption.editTitle' : 'admin.redemption.createTitle')}
        initial={initial}
        fields={[
          { name: 'name', label: t('admin.common.name'), required: true },
          {
            name: 'amount',
            label: t(inCurrency ? 'admin.redemption.field.amount' : 'admin.redemption.field.quota'),
            kind: 'number',
            required: true,
          },
          ...(code
            ? []
            : [
                {
                  name: 'count',
                  label: t('admin.redemption.field.count'),
                  kind: 'number' as const,
                  required: true,
                },
              ]),
        ]}
        toBody={(v) =>
          code
            ? { id: code.id, name: v.name, quota: toQuota(v.amount) }
            : { name: v.name, quota: toQuota(v.amount), count: num(v.count) }
        }
        schema={code ? redemptionUpdateInput : redemptionCreateInput}
        submit={async (body) => {
          if (code) {
            await updateRedemption(body);
            toast.success(t('admin.common.saved'));
          } else {
            setCreated({ name: (body as { name: string }).name, keys: await createRedemptions(body) });
          }
          await client.invalidateQueries({ queryKey: [REDEMPTION_PATH] });
        }}
        onClose={() => setEditing({ open: false, code: null })}
      />
      <CreatedKeys
        name={created.name}
        keys={created.keys}
        onClose={() => setCreated({ name: '', keys: [] })}
      />
    </ListScreen>
  );
}

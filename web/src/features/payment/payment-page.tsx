import AddOutlined from '@mui/icons-material/AddOutlined';
import DeleteOutlined from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import Alert from '@mui/material/Alert';
import Avatar from '@mui/material/Avatar';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import Tab from '@mui/material/Tab';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tabs from '@mui/material/Tabs';
import Tooltip from '@mui/material/Tooltip';
import {
  formatTimestamp,
  OrderStatus,
  PAYMENT_TYPES,
  type PaymentType,
  renderQuota,
} from '@switchyard/domain';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useSearchParams } from 'react-router';
import { useConfirm } from '../../components/confirm-dialog';
import { type DataColumn, useTableState } from '../../components/data-table';
import { ListTable, PageHeader } from '../../components/list-screen';
import type { MessageKey } from '../../i18n/message-key';
import { useSiteInfo } from '../../lib/site-info';
import { useAdminAction } from '../admin/use-admin-action';
import {
  deleteGateway,
  GATEWAY_PATH,
  type GatewayView,
  type OrderView,
  setGatewayEnabled,
  useGateways,
  useOrderPage,
} from './api';
import { GatewayDialog } from './gateway-dialog';

const STATUS_COLOR: Record<string, 'success' | 'warning' | 'default' | 'error'> = {
  success: 'success',
  pending: 'warning',
  closed: 'default',
  failed: 'error',
};

function OrderStatusChip({ status }: { status: string }) {
  const { t } = useTranslation();
  return (
    <Chip
      size="small"
      variant="outlined"
      color={STATUS_COLOR[status] ?? 'default'}
      label={t(`admin.payment.status.${status}` as MessageKey)}
    />
  );
}

function OrderLog() {
  const { t } = useTranslation();
  const site = useSiteInfo();
  const display = { quotaPerUnit: site.quota_per_unit, displayInCurrency: site.display_in_currency };
  const controls = useTableState({
    filters: ['user_id', 'trade_no', 'status', 'gateway_id'],
    defaultOrder: '-id',
  });
  const query = useOrderPage(controls);
  const gateways = useGateways();
  const money = (v: number, c: string) => `${v.toFixed(2)} ${c}`;
  const columns: DataColumn<OrderView>[] = [
    {
      id: 'created_at',
      header: t('admin.common.createdTime'),
      cell: (o) => formatTimestamp(o.created_at),
      sortField: 'created_at',
    },
    {
      id: 'gateway',
      header: t('admin.payment.field.gateway'),
      cell: (o) => o.gateway_name || `#${o.gateway_id}`,
      sortField: 'gateway_id',
    },
    { id: 'user_id', header: t('admin.payment.field.user'), cell: (o) => o.user_id, sortField: 'user_id' },
    { id: 'trade_no', header: t('admin.payment.field.tradeNo'), cell: (o) => o.trade_no, hideable: false },
    {
      id: 'gateway_no',
      header: t('admin.payment.field.gatewayNo'),
      cell: (o) => o.gateway_no,
      hiddenByDefault: true,
    },
    { id: 'amount', header: t('admin.payment.field.amount'), cell: (o) => `${o.amount} USD`, align: 'right' },
    {
      id: 'discount',
      header: t('admin.payment.field.discount'),
      cell: (o) => money(o.discount, o.order_currency),
      align: 'right',
    },
    {
      id: 'fee',
      header: t('admin.payment.field.fee'),
      cell: (o) => money(o.fee, o.order_currency),
      align: 'right',
    },
    {
      id: 'order_amount',
      header: t('admin.payment.field.orderAmount'),
      cell: (o) => money(o.order_amount, o.order_currency),
      align: 'right',
    },
    {
      id: 'quota',
      header: t('admin.payment.field.quota'),
      cell: (o) => renderQuota(o.quota, display),
      align: 'right',
    },
    {
      id: 'status',
      header: t('admin.payment.field.status'),
      cell: (o) => <OrderStatusChip status={o.status} />,
      sortField: 'status',
    },
  ];
  return (
    <ListTable
      tableId="orders"
      columns={columns}
      controls={controls}
      query={query}
      rowKey={(o) => o.id}
      filters={[
        { kind: 'search', name: 'trade_no', label: t('admin.payment.field.tradeNo') },
        { kind: 'search', name: 'user_id', label: t('admin.payment.field.userId') },
        {
          kind: 'select',
          name: 'status',
          label: t('admin.payment.field.status'),
          width: 130,
          options: [
            { value: '', label: t('admin.common.all') },
            ...Object.values(OrderStatus).map((s) => ({
              value: s,
              label: t(`admin.payment.status.${s}` as MessageKey),
            })),
          ],
        },
        {
          kind: 'select',
          name: 'gateway_id',
          label: t('admin.payment.field.gateway'),
          width: 160,
          options: [
            { value: '', label: t('admin.common.all') },
            ...(gateways.data?.data ?? []).map((g) => ({ value: String(g.id), label: g.name })),
          ],
        },
      ]}
    />
  );
}

function GatewayList(props: { onEdit: (g: GatewayView) => void }) {
  const { t } = useTranslation();
  const list = useGateways();
  const [confirm, ask] = useConfirm();
  const toggle = useAdminAction((g: GatewayView) => setGatewayEnabled(g, !g.enable), {
    invalidate: [GATEWAY_PATH],
  });
  const remove = useAdminAction(deleteGateway, {
    invalidate: [GATEWAY_PATH],
    success: t('admin.common.deleted'),
  });
  const rows = list.data?.data ?? [];
  if (list.isSuccess && rows.length === 0)
    return (
      <Alert severity="info" data-testid="payment-none">
        {t('admin.payment.none')} {t('admin.payment.noneHint')}
      </Alert>
    );
  return (
    <TableContainer component={Card} variant="outlined">
      {confirm}
      <Table size="small" data-testid="gateway-table">
        <TableHead>
          <TableRow sx={{ '& th': { whiteSpace: 'nowrap' } }}>
            <TableCell>{t('admin.common.id')}</TableCell>
            <TableCell>{t('admin.common.name')}</TableCell>
            <TableCell>{t('admin.payment.field.type')}</TableCell>
            <TableCell>{t('admin.payment.field.uuid')}</TableCell>
            <TableCell>{t('admin.payment.field.currency')}</TableCell>
            <TableCell align="right">{t('admin.payment.field.fixedFee')}</TableCell>
            <TableCell align="right">{t('admin.payment.field.percentFee')}</TableCell>
            <TableCell align="right">{t('admin.payment.field.sort')}</TableCell>
            <TableCell>{t('admin.payment.field.enable')}</TableCell>
            <TableCell>{t('admin.common.createdTime')}</TableCell>
            <TableCell />
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((g) => (
            <TableRow key={g.id}>
              <TableCell>{g.id}</TableCell>
              <TableCell>
                <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                  <Avatar src={g.icon} alt="" variant="rounded" sx={{ width: 24, height: 24 }} />
                  <span>{g.name}</span>
                </Stack>
              </TableCell>
              <TableCell>{t(`admin.payment.types.${g.type}` as MessageKey)}</TableCell>
              <TableCell sx={{ fontFamily: 'monospace', fontSize: 12 }}>{g.uuid}</TableCell>
              <TableCell>{g.currency}</TableCell>
              <TableCell align="right">{g.fixed_fee}</TableCell>
              <TableCell align="right">{g.percent_fee}</TableCell>
              <TableCell align="right">{g.sort}</TableCell>
              <TableCell>
                <Switch
                  size="small"
                  checked={g.enable}
                  onChange={() => toggle.mutate(g)}
                  slotProps={{ input: { 'aria-label': t('admin.payment.toggle', { name: g.name }) } }}
                />
              </TableCell>
              <TableCell>{formatTimestamp(g.created_at)}</TableCell>
              <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                <Tooltip title={t('admin.common.edit')}>
                  <IconButton
                    size="small"
                    aria-label={t('admin.common.edit')}
                    onClick={() => props.onEdit(g)}
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
                      if (await ask(t('admin.payment.confirmDelete', { name: g.name }))) remove.mutate(g.id);
                    }}
                  >
                    <DeleteOutlined fontSize="small" />
                  </IconButton>
                </Tooltip>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

type PaymentTab = 'orders' | 'gateways' | 'settings';

/** /panel/payment: the order log, the payment gateways and a way to the payment settings. */
export default function PaymentPage() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [params, setParams] = useSearchParams();
  const tab = (params.get('tab') as PaymentTab | null) ?? 'orders';
  const [menu, setMenu] = useState<HTMLElement | null>(null);
  const [editing, setEditing] = useState<{ open: boolean; type: PaymentType; gateway: GatewayView | null }>({
    open: false,
    type: 'stripe',
    gateway: null,
  });
  return (
    <>
      <PageHeader
        actions={
          <>
            <Button
              variant="contained"
              startIcon={<AddOutlined />}
              onClick={(e) => setMenu(e.currentTarget)}
              data-testid="gateway-create"
            >
              {t('admin.payment.create')}
            </Button>
            <Menu anchorEl={menu} open={menu !== null} onClose={() => setMenu(null)}>
              {PAYMENT_TYPES.map((type) => (
                <MenuItem
                  key={type}
                  data-testid={`gateway-create-${type}`}
                  onClick={() => {
                    setMenu(null);
                    setEditing({ open: true, type, gateway: null });
                  }}
                >
                  {t(`admin.payment.types.${type}`)}
                </MenuItem>
              ))}
            </Menu>
          </>
        }
      />
      <Tabs
        value={tab}
        onChange={(_, v: PaymentTab) => setParams(v === 'orders' ? {} : { tab: v })}
        sx={{ mb: 2 }}
      >
        <Tab value="orders" label={t('admin.payment.tabs.orders')} data-testid="payment-tab-orders" />
        <Tab value="gateways" label={t('admin.payment.tabs.gateways')} data-testid="payment-tab-gateways" />
        <Tab value="settings" label={t('admin.payment.tabs.settings')} data-testid="payment-tab-settings" />
      </Tabs>
      {tab === 'orders' && <OrderLog />}
      {tab === 'gateways' && (
        <GatewayList onEdit={(g) => setEditing({ open: true, type: g.type, gateway: g })} />
      )}
      {tab === 'settings' && (
        <Alert
          severity="info"
          action={
            <Button component={RouterLink} to="/panel/setting?tab=operation">
              {t('admin.payment.openSettings')}
            </Button>
          }
        >
          {t('admin.payment.settingsHint')}
        </Alert>
      )}
      <GatewayDialog
        open={editing.open}
        type={editing.type}
        gateway={editing.gateway}
        onClose={() => setEditing((e) => ({ ...e, open: false }))}
        onSaved={async () => {
          await client.invalidateQueries({ queryKey: [GATEWAY_PATH] });
          if (tab !== 'gateways') setParams({ tab: 'gateways' });
        }}
      />
    </>
  );
}

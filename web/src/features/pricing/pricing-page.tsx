import AddOutlined from '@mui/icons-material/AddOutlined';
import DeleteOutlined from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import LibraryAddOutlined from '@mui/icons-material/LibraryAddOutlined';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Tooltip from '@mui/material/Tooltip';
import { PriceType, type PriceView, renderPrice } from '@switchyard/domain';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type DataColumn, useTableState } from '../../components/data-table';
import { type FilterSpec, ListTable, PageHeader } from '../../components/list-screen';
import { pageLocally } from '../admin/local-page';
import { useAdminAction } from '../admin/use-admin-action';
import { useModelOwners } from '../site/api';
import { deletePrice, deletePrices, PRICES_PATH, usePrices } from './api';
import { PriceDialog, type PriceEdit } from './price-dialog';
import { groupPrices, type PriceGroup } from './price-groups';

const FILTERS = ['view', 'keyword', 'owner', 'type'] as const;

function Money({ ratio, type }: { ratio: number; type: string }) {
  const { t } = useTranslation();
  const figures = renderPrice(ratio, { perThousand: type === PriceType.Tokens });
  if (figures === 'Free') return <>{t('admin.pricing.free')}</>;
  return (
    <Tooltip
      title={t(type === PriceType.Tokens ? 'admin.pricing.perMillion' : 'admin.pricing.perCall', {
        usd: figures.usd,
        cny: figures.cny,
      })}
    >
      <span>{ratio}</span>
    </Tooltip>
  );
}

export default function PricingPage() {
  const { t } = useTranslation();
  const controls = useTableState({ filters: FILTERS, defaultOrder: 'model' });
  const filters = controls.state.filters;
  const grouped = filters.view === 'grouped';
  const prices = usePrices();
  const owners = useModelOwners();
  const ownerName = (id: number) => owners.data?.find((o) => o.id === id)?.name ?? String(id);
  const [edit, setEdit] = useState<PriceEdit | null>(null);
  const removeOne = useAdminAction(deletePrice, {
    invalidate: [PRICES_PATH],
    success: t('admin.common.deleted'),
  });
  const removeMany = useAdminAction(deletePrices, {
    invalidate: [PRICES_PATH],
    success: t('admin.common.deleted'),
  });

  const keyword = filters.keyword.toLowerCase();
  const keep = (p: Omit<PriceView, 'model'>, models: string[]) =>
    (!keyword || models.some((m) => m.toLowerCase().includes(keyword))) &&
    (!filters.owner || String(p.channel_type) === filters.owner) &&
    (!filters.type || p.type === filters.type);
  const all = prices.data ?? [];
  const singlePage = prices.data ? pageLocally(all, controls.state, (p) => keep(p, [p.model])) : undefined;
  const groups = groupPrices(all).map((g) => ({ ...g, ...g.price, model: g.models[0] ?? '' }));
  const groupPage = prices.data
    ? pageLocally(groups, controls.state, (g) => keep(g.price, g.models))
    : undefined;

  const priceColumns = <T extends Omit<PriceView, 'model'>>(): DataColumn<T>[] => [
    {
      id: 'type',
      header: t('admin.pricing.field.type'),
      sortField: 'type',
      cell: (p) => t(`admin.pricing.type.${p.type}`),
    },
    {
      id: 'owner',
      header: t('admin.pricing.field.owner'),
      sortField: 'channel_type',
      cell: (p) => ownerName(p.channel_type),
    },
    {
      id: 'input',
      header: t('admin.pricing.field.input'),
      sortField: 'input',
      cell: (p) => <Money ratio={p.input} type={p.type} />,
    },
    {
      id: 'output',
      header: t('admin.pricing.field.output'),
      sortField: 'output',
      cell: (p) => <Money ratio={p.output} type={p.type} />,
    },
    {
      id: 'audio',
      header: t('admin.pricing.field.audio'),
      cell: (p) =>
        p.extra_ratios.input_audio_tokens !== undefined || p.extra_ratios.output_audio_tokens !== undefined
          ? `${p.extra_ratios.input_audio_tokens ?? '-'} / ${p.extra_ratios.output_audio_tokens ?? '-'}`
          : '',
    },
    {
      id: 'locked',
      header: t('admin.pricing.field.locked'),
      cell: (p) => (p.locked ? t('admin.common.yes') : ''),
    },
  ];
  const singleColumns: DataColumn<PriceView>[] = [
    {
      id: 'model',
      header: t('admin.pricing.field.model'),
      sortField: 'model',
      hideable: false,
      cell: (p) => p.model,
    },
    ...priceColumns<PriceView>(),
  ];
  type GroupRow = PriceGroup & Omit<PriceView, 'model'> & { model: string };
  const groupColumns: DataColumn<GroupRow>[] = [
    {
      id: 'models',
      header: t('admin.pricing.field.models'),
      hideable: false,
      cell: (g) => (
        <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5, maxWidth: 520 }}>
          {g.models.map((m) => (
            <Chip key={m} size="small" label={m} />
          ))}
        </Box>
      ),
    },
    ...priceColumns<GroupRow>(),
  ];

  const filterSpecs: FilterSpec<(typeof FILTERS)[number]>[] = [
    { kind: 'search', name: 'keyword', label: t('admin.pricing.search') },
    {
      kind: 'select',
      name: 'owner',
      label: t('admin.pricing.field.owner'),
      width: 160,
      options: [
        { value: '', label: t('admin.common.all') },
        ...(owners.data ?? []).map((o) => ({ value: String(o.id), label: o.name })),
      ],
    },
    {
      kind: 'select',
      name: 'type',
      label: t('admin.pricing.field.type'),
      options: [
        { value: '', label: t('admin.common.all') },
        { value: PriceType.Tokens, label: t('admin.pricing.type.tokens') },
        { value: PriceType.Times, label: t('admin.pricing.type.times') },
      ],
    },
  ];
  const editAction = { label: t('admin.common.edit'), icon: <EditOutlined fontSize="small" /> };
  const deleteAction = {
    label: t('admin.common.delete'),
    icon: <DeleteOutlined fontSize="small" />,
    color: 'error' as const,
  };

  return (
    <>
      <PageHeader
        actions={
          <>
            <Button
              variant="contained"
              startIcon={<AddOutlined />}
              onClick={() => setEdit({ mode: 'single', original: null, models: [] })}
            >
              {t('admin.pricing.create')}
            </Button>
            <Button
              variant="outlined"
              startIcon={<LibraryAddOutlined />}
              onClick={() => setEdit({ mode: 'batch', original: null, models: [] })}
            >
              {t('admin.pricing.createBatch')}
            </Button>
          </>
        }
      />
      <Tabs
        value={grouped ? 'grouped' : 'single'}
        onChange={(_, v: string) => controls.setFilters({ view: v === 'grouped' ? 'grouped' : '' })}
        sx={{ mb: 2 }}
      >
        <Tab value="single" label={t('admin.pricing.single')} />
        <Tab value="grouped" label={t('admin.pricing.grouped')} />
      </Tabs>
      {grouped ? (
        <ListTable
          tableId="prices-grouped"
          columns={groupColumns}
          controls={controls}
          query={{ ...prices, data: groupPage }}
          rowKey={(g) => g.key}
          filters={filterSpecs}
          rowActions={[
            {
              ...editAction,
              run: (g) =>
                setEdit({
                  mode: 'batch',
                  original: { ...g.price, model: g.models[0] ?? '' },
                  models: g.models,
                }),
            },
            {
              ...deleteAction,
              confirm: (g) => t('admin.pricing.confirmDeleteMany', { count: g.models.length }),
              run: (g) => removeMany.mutate(g.models),
            },
          ]}
        />
      ) : (
        <ListTable
          tableId="prices"
          columns={singleColumns}
          controls={controls}
          query={{ ...prices, data: singlePage }}
          rowKey={(p) => p.model}
          filters={filterSpecs}
          rowActions={[
            { ...editAction, run: (p) => setEdit({ mode: 'single', original: p, models: [p.model] }) },
            {
              ...deleteAction,
              confirm: (p) => t('admin.pricing.confirmDelete', { model: p.model }),
              run: (p) => removeOne.mutate(p.model),
            },
          ]}
        />
      )}
      <PriceDialog edit={edit} onClose={() => setEdit(null)} />
    </>
  );
}

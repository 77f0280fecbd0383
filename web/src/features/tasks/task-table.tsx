import Typography from '@mui/material/Typography';
import type { TFunction } from 'i18next';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { type DataColumn, DataTable, type TableControls, type TableQuery } from '../../components/data-table';
import { TaskFilterBar, type TextFilter } from './task-filter-bar';
import { elapsed, OneLine, TimeCell } from './task-status';

// What the image-task and async-task screens show alike: the columns every task row has and the
// table with its filter bar, administrators getting the channel and the user on top.

export interface TaskRowBase {
  user_id: number;
  channel_id?: number;
  submit_time: number;
  finish_time: number;
  fail_reason: string;
}

/** Submit and finish times, then (administrators) the channel and the user. */
export function timeAndOwnerColumns<R extends TaskRowBase>(t: TFunction, isAdmin: boolean): DataColumn<R>[] {
  return [
    {
      id: 'submit',
      header: t('user.task.submitTime'),
      sortField: 'submit_time',
      cell: (r) => <TimeCell seconds={r.submit_time} />,
    },
    {
      id: 'finish',
      header: t('user.task.finishTime'),
      sortField: 'finish_time',
      cell: (r) => <TimeCell seconds={r.finish_time} />,
    },
    ...(isAdmin
      ? [
          {
            id: 'channel',
            header: t('user.log.channel'),
            sortField: 'channel_id',
            cell: (r: R) => r.channel_id ?? '—',
          },
          { id: 'user', header: t('user.log.user'), sortField: 'user_id', cell: (r: R) => r.user_id },
        ]
      : []),
  ];
}

export function elapsedColumn<R extends TaskRowBase>(t: TFunction): DataColumn<R> {
  return {
    id: 'elapsed',
    header: t('user.task.elapsed'),
    cell: (r) => <OneLine text={elapsed(r.submit_time, r.finish_time)} maxWidth={80} />,
  };
}

export function failReasonColumn<R extends TaskRowBase>(
  t: TFunction,
  hiddenByDefault: boolean,
): DataColumn<R> {
  return {
    id: 'fail',
    header: t('user.task.failReason'),
    ...(hiddenByDefault ? { hiddenByDefault } : {}),
    cell: (r) => (
      <Typography variant="body2" color="error" noWrap title={r.fail_reason} sx={{ maxWidth: 200 }}>
        {r.fail_reason}
      </Typography>
    ),
  };
}

/** The task list with its filter bar: the screen's text filters, then the channel and user for administrators. */
export function TaskTable<R extends { id: number }>({
  tableId,
  isAdmin,
  columns,
  table,
  query,
  fields,
  extra,
}: {
  tableId: string;
  isAdmin: boolean;
  columns: DataColumn<R>[];
  table: TableControls;
  query: TableQuery<R>;
  fields: readonly TextFilter[];
  extra?: (draft: Record<string, string>, set: (name: string, value: string) => void) => ReactNode;
}) {
  const { t } = useTranslation();
  const allFields = isAdmin
    ? [
        ...fields,
        { name: 'channel_id', label: t('user.log.channelId') },
        { name: 'user_id', label: t('user.task.userId') },
      ]
    : fields;
  return (
    <DataTable
      tableId={tableId}
      columns={columns}
      controls={table}
      query={query}
      rowKey={(r) => r.id}
      filterBar={
        <TaskFilterBar
          key={JSON.stringify(table.state.filters)}
          fields={allFields}
          filters={table.state.filters}
          onApply={(next) => table.setFilters(next)}
          onReset={() => table.resetFilters()}
          {...(extra ? { extra } : {})}
        />
      }
      emptyText={t('user.task.empty')}
    />
  );
}

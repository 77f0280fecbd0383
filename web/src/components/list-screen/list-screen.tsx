import AddOutlined from '@mui/icons-material/AddOutlined';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import type { TFunction } from 'i18next';
import type { ReactNode } from 'react';
import { useConfirm } from '../confirm-dialog';
import {
  type DataColumn,
  DataTable,
  type RowKey,
  type RowSelection,
  type TableControls,
  type TableQuery,
} from '../data-table';
import { PageHeader } from './page-header';
import { SearchField } from './search-field';

/** A filter above the list, bound to one URL filter of the table state. Texts arrive translated. */
export type FilterSpec<F extends string> =
  | { kind: 'search'; name: F; label: string; width?: number }
  | {
      kind: 'select';
      name: F;
      label: string;
      /** '' (the first entry, "All") clears the filter. */
      options: readonly { value: string; label: string }[];
      width?: number;
    };

/** A button of one row. `confirm` asks first (deletes, role changes): its text for this row. */
export interface RowAction<T> {
  label: string;
  icon: ReactNode;
  run: (row: T) => void;
  color?: 'error';
  confirm?: (row: T) => string;
  /** Not offered for this row at all. */
  hidden?: (row: T) => boolean;
  /** Shown greyed (the row cannot take it, e.g. the default group). */
  disabled?: (row: T) => boolean;
}

/** The list without its screen: the filters, the table and the row buttons (a list inside a tab). */
export interface ListTableProps<T, F extends string> {
  tableId: string;
  columns: readonly DataColumn<T>[];
  controls: TableControls<F>;
  query: TableQuery<T>;
  rowKey: (row: T) => RowKey;
  filters?: readonly FilterSpec<F>[];
  /** Filter inputs no descriptor covers (date ranges), after the described ones. */
  moreFilters?: ReactNode;
  /** Buttons acting on the whole list, above the table. */
  toolbar?: ReactNode;
  rowActions?: readonly RowAction<T>[];
  /** A row's own controls before its buttons (a channel's test button). */
  rowLead?: (row: T) => ReactNode;
  selection?: RowSelection;
  subRows?: (row: T) => readonly T[] | undefined;
  emptyText?: string;
}

export interface ListScreenProps<T, F extends string> extends ListTableProps<T, F> {
  /** The header's "create" button. */
  create?: { label: string; run: () => void };
  /** More header buttons, after the create button. */
  actions?: ReactNode;
  /** Between the header and the table (progress of a long action, a summary panel). */
  banner?: ReactNode;
  /** The screen's dialogs. */
  children?: ReactNode;
}

/**
 * The one list screen of the console: the route's title with the screen's buttons, the filters
 * described by the page, the shared table (page, sort and filters in the URL), the row buttons.
 */
export function ListScreen<T, const F extends string>(props: ListScreenProps<T, F>) {
  const { create, actions, banner, children, ...table } = props;
  return (
    <>
      <PageHeader
        actions={
          <>
            {create ? (
              <Button variant="contained" startIcon={<AddOutlined />} onClick={create.run}>
                {create.label}
              </Button>
            ) : null}
            {actions}
          </>
        }
      />
      {banner}
      <ListTable {...table} />
      {children}
    </>
  );
}

/** Filters from their descriptors, the shared table, each row's buttons (asking first where they say so). */
export function ListTable<T, const F extends string>(props: ListTableProps<T, F>) {
  const [confirm, ask] = useConfirm();
  const { controls, rowActions, rowLead } = props;

  const filterBar =
    props.filters || props.moreFilters ? (
      <>
        {props.filters?.map((filter) =>
          filter.kind === 'search' ? (
            <SearchField
              key={filter.name}
              label={filter.label}
              value={controls.state.filters[filter.name]}
              onApply={(value) => controls.setFilters({ [filter.name]: value } as Partial<Record<F, string>>)}
              {...(filter.width ? { width: filter.width } : {})}
            />
          ) : (
            <TextField
              key={filter.name}
              select
              size="small"
              label={filter.label}
              value={controls.state.filters[filter.name]}
              onChange={(e) =>
                controls.setFilters({ [filter.name]: e.target.value } as Partial<Record<F, string>>)
              }
              sx={{ width: filter.width ?? 120 }}
            >
              {filter.options.map((option) => (
                <MenuItem key={option.value} value={option.value}>
                  {option.label}
                </MenuItem>
              ))}
            </TextField>
          ),
        )}
        {props.moreFilters}
      </>
    ) : undefined;

  const actionsOf = (row: T) => {
    const shown = rowActions?.filter((action) => !action.hidden?.(row)) ?? [];
    const lead = rowLead?.(row);
    if (shown.length === 0 && !lead) return null;
    return (
      <Stack direction="row" sx={{ gap: 0.5, justifyContent: 'flex-end', alignItems: 'center' }}>
        {lead}
        {shown.map((action) => (
          <Tooltip key={action.label} title={action.label}>
            {/* A disabled button gets no pointer events; the span keeps its tooltip. */}
            <span>
              <IconButton
                size="small"
                {...(action.color ? { color: action.color } : {})}
                disabled={action.disabled?.(row) ?? false}
                aria-label={action.label}
                onClick={async () => {
                  if (action.confirm && !(await ask(action.confirm(row)))) return;
                  action.run(row);
                }}
              >
                {action.icon}
              </IconButton>
            </span>
          </Tooltip>
        ))}
      </Stack>
    );
  };

  return (
    <>
      {confirm}
      <DataTable
        tableId={props.tableId}
        columns={props.columns}
        controls={controls}
        query={props.query}
        rowKey={props.rowKey}
        filterBar={filterBar}
        toolbar={props.toolbar}
        {...(rowActions || rowLead ? { rowActions: actionsOf } : {})}
        {...(props.selection ? { selection: props.selection } : {})}
        {...(props.subRows ? { subRows: props.subRows } : {})}
        {...(props.emptyText ? { emptyText: props.emptyText } : {})}
      />
    </>
  );
}

/** The options of an enabled / disabled filter ('' = all), as the list APIs take it. */
export function enabledOptions(t: TFunction) {
  return [
    { value: '', label: t('admin.common.all') },
    { value: '1', label: t('admin.common.enabled') },
    { value: '0', label: t('admin.common.disabled') },
  ] as const;
}

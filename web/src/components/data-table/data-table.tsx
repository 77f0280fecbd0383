import KeyboardArrowDown from '@mui/icons-material/KeyboardArrowDown';
import KeyboardArrowRight from '@mui/icons-material/KeyboardArrowRight';
import Refresh from '@mui/icons-material/Refresh';
import ViewColumnOutlined from '@mui/icons-material/ViewColumnOutlined';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import { useTheme } from '@mui/material/styles';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TablePagination from '@mui/material/TablePagination';
import TableRow from '@mui/material/TableRow';
import TableSortLabel from '@mui/material/TableSortLabel';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Page } from '@switchyard/domain';
import { Fragment, type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useHiddenColumns } from './column-visibility';
import { PAGE_SIZES, sortOf } from './table-url-state';
import type { TableControls } from './use-table-state';

export type RowKey = string | number;

export interface DataColumn<T> {
  id: string;
  /** Already translated. */
  header: string;
  cell: (row: T) => ReactNode;
  /** The API's order field; without it the column is not sortable. */
  sortField?: string;
  align?: 'left' | 'right' | 'center';
  /** false keeps the column out of the visibility menu (always shown). */
  hideable?: boolean;
  hiddenByDefault?: boolean;
  width?: number | string;
}

/** What the table needs of a list query (a TanStack `useQuery` result fits). */
export interface TableQuery<T> {
  data?: Page<T> | undefined;
  isPending: boolean;
  isError: boolean;
  isFetching: boolean;
  refetch: () => unknown;
}

export interface RowSelection {
  selected: ReadonlySet<RowKey>;
  onChange: (next: Set<RowKey>) => void;
}

export interface DataTableProps<T> {
  /** Names the table's stored column preferences. */
  tableId: string;
  columns: readonly DataColumn<T>[];
  controls: TableControls;
  query: TableQuery<T>;
  rowKey: (row: T) => RowKey;
  /** Filter inputs shown above the table. */
  filterBar?: ReactNode;
  /** Buttons acting on the whole list (create, batch actions). */
  toolbar?: ReactNode;
  /** Buttons of one row, in a trailing column. */
  rowActions?: (row: T) => ReactNode;
  selection?: RowSelection;
  /** Member rows shown under a row when it is expanded (e.g. the channels of one tag). */
  subRows?: (row: T) => readonly T[] | undefined;
  emptyText?: string;
}

/** The one list component of the console: server-side pages, sort and filters in the URL. */
export function DataTable<T>(props: DataTableProps<T>) {
  const { t } = useTranslation();
  const { columns, controls, query, rowKey, rowActions, selection, subRows } = props;
  const { hidden, toggle } = useHiddenColumns(
    props.tableId,
    columns.filter((c) => c.hiddenByDefault).map((c) => c.id),
  );
  const [expanded, setExpanded] = useState<ReadonlySet<RowKey>>(new Set());
  const [columnMenu, setColumnMenu] = useState<HTMLElement | null>(null);
  // On a phone a row is a card of label / value lines: a table of several columns cannot fit.
  const theme = useTheme();
  const cards = useMediaQuery(theme.breakpoints.down('sm'));

  const visible = columns.filter((c) => c.hideable === false || !hidden.includes(c.id));
  const rows = query.data?.data ?? [];
  const total = query.data?.total_count ?? 0;
  const pageKeys = rows.map(rowKey);
  const selectedOnPage = selection ? pageKeys.filter((key) => selection.selected.has(key)).length : 0;
  const span = visible.length + (rowActions ? 1 : 0) + (selection ? 1 : 0) + (subRows ? 1 : 0);

  const toggleRow = (key: RowKey) => {
    if (!selection) return;
    const next = new Set(selection.selected);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    selection.onChange(next);
  };
  const togglePage = () => {
    if (!selection) return;
    const next = new Set(selection.selected);
    const all = selectedOnPage === pageKeys.length;
    for (const key of pageKeys) {
      if (all) next.delete(key);
      else next.add(key);
    }
    selection.onChange(next);
  };

  const renderRow = (row: T, depth: number): ReactNode => {
    const key = rowKey(row);
    const members = depth === 0 ? subRows?.(row) : undefined;
    const open = expanded.has(key);
    return (
      <Fragment key={`${depth}:${key}`}>
        <TableRow hover data-testid={`row-${key}`} sx={depth > 0 ? { bgcolor: 'action.hover' } : undefined}>
          {subRows && <TableCell padding="checkbox">{members && expandButton(key, open)}</TableCell>}
          {selection && (
            <TableCell padding="checkbox">
              {depth === 0 && (
                <Checkbox
                  checked={selection.selected.has(key)}
                  onChange={() => toggleRow(key)}
                  slotProps={{ input: { 'aria-label': t('table.selectRow') } }}
                />
              )}
            </TableCell>
          )}
          {visible.map((column) => (
            <TableCell key={column.id} align={column.align} sx={{ width: column.width }}>
              {column.cell(row)}
            </TableCell>
          ))}
          {rowActions && (
            <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
              {rowActions(row)}
            </TableCell>
          )}
        </TableRow>
        {open && members?.map((member) => renderRow(member, depth + 1))}
      </Fragment>
    );
  };

  const expandButton = (key: RowKey, open: boolean) => (
    <IconButton
      size="small"
      aria-label={t(open ? 'table.collapse' : 'table.expand')}
      aria-expanded={open}
      onClick={() =>
        setExpanded((current) => {
          const next = new Set(current);
          if (open) next.delete(key);
          else next.add(key);
          return next;
        })
      }
    >
      {open ? <KeyboardArrowDown /> : <KeyboardArrowRight />}
    </IconButton>
  );

  const renderCard = (row: T, depth: number): ReactNode => {
    const key = rowKey(row);
    const members = depth === 0 ? subRows?.(row) : undefined;
    const open = expanded.has(key);
    return (
      <Fragment key={`${depth}:${key}`}>
        <Box
          data-testid={`row-${key}`}
          sx={{
            px: 2,
            py: 1.5,
            borderTop: 1,
            borderColor: 'divider',
            display: 'grid',
            gap: 0.75,
            ...(depth > 0 ? { bgcolor: 'action.hover', pl: 4 } : {}),
          }}
        >
          {(members || (selection && depth === 0)) && (
            <Stack direction="row" sx={{ alignItems: 'center', ml: -1 }}>
              {selection && depth === 0 && (
                <Checkbox
                  checked={selection.selected.has(key)}
                  onChange={() => toggleRow(key)}
                  slotProps={{ input: { 'aria-label': t('table.selectRow') } }}
                />
              )}
              {members && expandButton(key, open)}
            </Stack>
          )}
          {visible.map((column) => (
            <Box
              key={column.id}
              sx={{
                display: 'flex',
                gap: 2,
                justifyContent: 'space-between',
                alignItems: 'center',
                minWidth: 0,
              }}
            >
              <Typography variant="body2" color="text.secondary" sx={{ flexShrink: 0 }}>
                {column.header}
              </Typography>
              <Box sx={{ minWidth: 0, overflowWrap: 'anywhere', textAlign: 'right', typography: 'body2' }}>
                {column.cell(row)}
              </Box>
            </Box>
          ))}
          {rowActions && (
            <Box sx={{ display: 'flex', justifyContent: 'flex-end', flexWrap: 'wrap' }}>
              {rowActions(row)}
            </Box>
          )}
        </Box>
        {open && members?.map((member) => renderCard(member, depth + 1))}
      </Fragment>
    );
  };

  let body: ReactNode;
  if (query.isPending) {
    body = (
      <TableRow>
        <TableCell colSpan={span} align="center" sx={{ py: 6, color: 'text.secondary' }}>
          {t('table.loading')}
        </TableCell>
      </TableRow>
    );
  } else if (query.isError && rows.length === 0) {
    body = (
      <TableRow>
        <TableCell colSpan={span} sx={{ py: 3 }}>
          <Alert
            severity="error"
            action={
              <Button color="inherit" size="small" onClick={() => query.refetch()}>
                {t('table.retry')}
              </Button>
            }
          >
            {t('table.error')}
          </Alert>
        </TableCell>
      </TableRow>
    );
  } else if (rows.length === 0) {
    body = (
      <TableRow>
        <TableCell colSpan={span} align="center" sx={{ py: 6, color: 'text.secondary' }}>
          {props.emptyText ?? t('table.empty')}
        </TableCell>
      </TableRow>
    );
  } else {
    body = rows.map((row) => renderRow(row, 0));
  }

  return (
    <Paper variant="outlined" data-testid="data-table">
      <Stack
        direction={{ xs: 'column', md: 'row' }}
        spacing={1}
        sx={{ p: 2, alignItems: { md: 'center' }, justifyContent: 'space-between' }}
      >
        <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1, alignItems: 'center', flex: 1 }}>
          {props.filterBar}
        </Box>
        <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1, alignItems: 'center' }}>
          {props.toolbar}
          <Tooltip title={t('table.refresh')}>
            <IconButton aria-label={t('table.refresh')} onClick={() => query.refetch()}>
              <Refresh />
            </IconButton>
          </Tooltip>
          <Tooltip title={t('table.columns')}>
            <IconButton
              aria-label={t('table.columns')}
              onClick={(event) => setColumnMenu(event.currentTarget)}
            >
              <ViewColumnOutlined />
            </IconButton>
          </Tooltip>
        </Box>
      </Stack>
      <Menu anchorEl={columnMenu} open={columnMenu !== null} onClose={() => setColumnMenu(null)}>
        {columns
          .filter((c) => c.hideable !== false)
          .map((column) => (
            <MenuItem key={column.id} dense onClick={() => toggle(column.id)}>
              <ListItemIcon>
                <Checkbox
                  edge="start"
                  size="small"
                  checked={!hidden.includes(column.id)}
                  tabIndex={-1}
                  disableRipple
                />
              </ListItemIcon>
              <ListItemText primary={column.header} />
            </MenuItem>
          ))}
      </Menu>
      <Box sx={{ height: 4 }}>{query.isFetching && !query.isPending && <LinearProgress />}</Box>
      {cards ? (
        <Box aria-busy={query.isFetching} data-testid="data-table-cards">
          {query.isPending || rows.length === 0 || (query.isError && rows.length === 0) ? (
            <Table size="small">
              <TableBody>{body}</TableBody>
            </Table>
          ) : (
            rows.map((row) => renderCard(row, 0))
          )}
        </Box>
      ) : (
        <TableContainer>
          <Table
            size="small"
            aria-busy={query.isFetching}
            // Narrower gutters than MUI's 16 px: a dozen columns fit a 1280 px window.
            sx={{
              '& .MuiTableCell-root': { px: 1 },
              // A long model name, key or log text breaks inside the word rather than widen the table.
              '& .MuiTableCell-body': { overflowWrap: 'anywhere' },
              '& .MuiTableCell-root:first-of-type': { pl: 2 },
              '& .MuiTableCell-root:last-of-type': { pr: 2 },
            }}
          >
            <TableHead>
              <TableRow>
                {subRows && <TableCell padding="checkbox" />}
                {selection && (
                  <TableCell padding="checkbox">
                    <Checkbox
                      indeterminate={selectedOnPage > 0 && selectedOnPage < pageKeys.length}
                      checked={pageKeys.length > 0 && selectedOnPage === pageKeys.length}
                      onChange={togglePage}
                      slotProps={{ input: { 'aria-label': t('table.selectPage') } }}
                    />
                  </TableCell>
                )}
                {visible.map((column) => {
                  const direction = column.sortField ? sortOf(controls.state.order, column.sortField) : null;
                  return (
                    <TableCell
                      key={column.id}
                      align={column.align}
                      sortDirection={direction ?? false}
                      // Long headers wrap rather than widen the table past its box.
                      sx={{ fontWeight: 600, lineHeight: 1.3 }}
                    >
                      {column.sortField ? (
                        <TableSortLabel
                          active={direction !== null}
                          direction={direction ?? 'asc'}
                          onClick={() => column.sortField && controls.sortBy(column.sortField)}
                        >
                          {column.header}
                        </TableSortLabel>
                      ) : (
                        column.header
                      )}
                    </TableCell>
                  );
                })}
                {rowActions && (
                  <TableCell align="right" sx={{ fontWeight: 600 }}>
                    {t('table.actions')}
                  </TableCell>
                )}
              </TableRow>
            </TableHead>
            <TableBody>{body}</TableBody>
          </Table>
        </TableContainer>
      )}
      <TablePagination
        component="div"
        count={total}
        page={Math.max(0, controls.state.page - 1)}
        rowsPerPage={controls.state.size}
        rowsPerPageOptions={[...PAGE_SIZES]}
        onPageChange={(_, page) => controls.setPage(page + 1)}
        onRowsPerPageChange={(event) => controls.setSize(Number(event.target.value))}
        labelRowsPerPage={t('table.rowsPerPage')}
        labelDisplayedRows={({ from, to, count }) => t('table.displayedRows', { from, to, count })}
        getItemAriaLabel={(type) => t(`table.page.${type}`)}
        showFirstButton
        showLastButton
        // On a phone the page buttons go under the counts instead of off the edge.
        sx={{ '& .MuiTablePagination-toolbar': { flexWrap: 'wrap', justifyContent: 'flex-end' } }}
      />
    </Paper>
  );
}

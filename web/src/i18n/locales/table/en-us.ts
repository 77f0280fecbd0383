import type { Messages } from '../../types';
import type { tableZhCN } from './zh-cn';

export const tableEnUS: Messages<typeof tableZhCN> = {
  actions: 'Actions',
  columns: 'Shown columns',
  refresh: 'Refresh',
  loading: 'Loading…',
  empty: 'No data',
  error: 'The data could not be loaded.',
  retry: 'Retry',
  rowsPerPage: 'Rows per page',
  displayedRows: '{{from}}–{{to}} of {{count}}',
  selectRow: 'Select this row',
  selectPage: 'Select all on this page',
  expand: 'Expand',
  collapse: 'Collapse',
  search: 'Search',
  reset: 'Reset',
  page: {
    first: 'First page',
    last: 'Last page',
    next: 'Next page',
    previous: 'Previous page',
  },
};

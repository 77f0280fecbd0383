export {
  type DataColumn,
  DataTable,
  type DataTableProps,
  type RowKey,
  type RowSelection,
  type TableQuery,
} from './data-table';
export { PAGE_SIZES } from './table-url-state';
export { useTableQuery } from './use-table-query';
export { type TableControls, useTableState } from './use-table-state';

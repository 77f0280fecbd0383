export {
  enabledOptions,
  type FilterSpec,
  ListScreen,
  type ListScreenProps,
  ListTable,
  type ListTableProps,
  type RowAction,
} from './list-screen';
export { PageHeader } from './page-header';
export { SEARCH_DELAY_MS, SearchField } from './search-field';

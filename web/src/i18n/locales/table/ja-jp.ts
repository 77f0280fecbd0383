import type { Messages } from '../../types';
import type { tableZhCN } from './zh-cn';

export const tableJaJP: Messages<typeof tableZhCN> = {
  actions: '操作',
  columns: '表示する列',
  refresh: '更新',
  loading: '読み込み中…',
  empty: 'データがありません',
  error: 'データを読み込めませんでした。',
  retry: '再試行',
  rowsPerPage: '1ページの行数',
  displayedRows: '{{count}} 件中 {{from}}–{{to}} 件',
  selectRow: 'この行を選択',
  selectPage: 'このページをすべて選択',
  expand: '展開',
  collapse: '折りたたむ',
  search: '検索',
  reset: 'リセット',
  page: {
    first: '最初のページ',
    last: '最後のページ',
    next: '次のページ',
    previous: '前のページ',
  },
};

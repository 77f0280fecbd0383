import type { Messages } from '../../types';
import type { tableZhCN } from './zh-cn';

export const tableZhHK: Messages<typeof tableZhCN> = {
  actions: '操作',
  columns: '顯示的欄',
  refresh: '重新整理',
  loading: '載入中…',
  empty: '暫無資料',
  error: '資料載入失敗。',
  retry: '重試',
  rowsPerPage: '每頁行數',
  displayedRows: '第 {{from}}–{{to}} 筆，共 {{count}} 筆',
  selectRow: '選擇此行',
  selectPage: '選擇本頁全部',
  expand: '展開',
  collapse: '收起',
  search: '搜尋',
  reset: '重設',
  page: {
    first: '第一頁',
    last: '最後一頁',
    next: '下一頁',
    previous: '上一頁',
  },
};

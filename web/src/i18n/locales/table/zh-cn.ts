// Source messages of the shared DataTable; the other languages mirror these keys exactly.
export const tableZhCN = {
  actions: '操作',
  columns: '显示的列',
  refresh: '刷新',
  loading: '加载中…',
  empty: '暂无数据',
  error: '数据加载失败。',
  retry: '重试',
  rowsPerPage: '每页行数',
  displayedRows: '第 {{from}}–{{to}} 条，共 {{count}} 条',
  selectRow: '选择此行',
  selectPage: '选择本页全部',
  expand: '展开',
  collapse: '收起',
  search: '搜索',
  reset: '重置',
  page: {
    first: '第一页',
    last: '最后一页',
    next: '下一页',
    previous: '上一页',
  },
};

import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { formatTimestamp } from '@switchyard/domain';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../app/session-context';
import { type DataColumn, DataTable, useTableQuery, useTableState } from '../../components/data-table';
import { useQuotaFormat } from '../../lib/quota-format';
import { TaskFilterBar } from './task-filter-bar';
import { elapsed, TaskProgress, TaskStatusChip } from './task-status';

interface TaskView {
  id: number;
  task_id: string;
  platform: string;
  user_id: number;
  action: string;
  status: string;
  fail_reason: string;
  submit_time: number;
  finish_time: number;
  progress: number;
  quota: number;
  data: unknown;
  channel_id?: number;
}

interface Clip {
  audio_url?: string;
  image_url?: string;
  title?: string;
}

/** Music tasks carry their clips in `data`; the first playable one is previewed. */
function firstClip(data: unknown): Clip | undefined {
  const list = Array.isArray(data) ? data : [];
  return list.find(
    (c): c is Clip => typeof c === 'object' && c !== null && typeof (c as Clip).audio_url === 'string',
  );
}

const USER_FILTERS = ['platform', 'task_id', 'start_timestamp', 'end_timestamp'] as const;
const ADMIN_FILTERS = [...USER_FILTERS, 'channel_id', 'user_id'] as const;
const PLATFORMS = ['suno', 'kling'] as const;

/** Async tasks (/panel/task): music, lyrics and video tasks, own or (administrators) all. */
export default function TaskPage() {
  const { t } = useTranslation();
  const { isAdmin } = useSession();
  const formatQuota = useQuotaFormat();
  const table = useTableState({ filters: isAdmin ? ADMIN_FILTERS : USER_FILTERS });
  const query = useTableQuery<TaskView>(isAdmin ? '/api/task' : '/api/task/self', table);
  const columns: DataColumn<TaskView>[] = [
    { id: 'task_id', header: t('user.task.taskId'), cell: (r) => r.task_id || '—', hideable: false },
    {
      id: 'submit',
      header: t('user.task.submitTime'),
      sortField: 'submit_time',
      cell: (r) => formatTimestamp(r.submit_time),
    },
    {
      id: 'finish',
      header: t('user.task.finishTime'),
      sortField: 'finish_time',
      cell: (r) => (r.finish_time ? formatTimestamp(r.finish_time) : '—'),
    },
    ...(isAdmin
      ? [
          {
            id: 'channel',
            header: t('user.log.channel'),
            sortField: 'channel_id',
            cell: (r: TaskView) => r.channel_id ?? '—',
          },
          { id: 'user', header: t('user.log.user'), sortField: 'user_id', cell: (r: TaskView) => r.user_id },
        ]
      : []),
    { id: 'platform', header: t('user.task.platform'), sortField: 'platform', cell: (r) => r.platform },
    { id: 'action', header: t('user.task.type'), cell: (r) => r.action },
    { id: 'elapsed', header: t('user.task.elapsed'), cell: (r) => elapsed(r.submit_time, r.finish_time) },
    { id: 'progress', header: t('user.task.progress'), cell: (r) => <TaskProgress value={r.progress} /> },
    { id: 'status', header: t('user.task.status'), cell: (r) => <TaskStatusChip status={r.status} /> },
    { id: 'quota', header: t('user.log.quota'), cell: (r) => formatQuota(r.quota), hiddenByDefault: true },
    {
      id: 'result',
      header: t('user.task.result'),
      cell: (r) => {
        const clip = firstClip(r.data);
        return clip?.audio_url ? (
          // biome-ignore lint/a11y/useMediaCaption: generated music has no caption track
          <audio controls preload="none" src={clip.audio_url} style={{ height: 32, maxWidth: 220 }} />
        ) : (
          '—'
        );
      },
    },
    {
      id: 'fail',
      header: t('user.task.failReason'),
      cell: (r) => (
        <Typography variant="body2" color="error" noWrap title={r.fail_reason} sx={{ maxWidth: 200 }}>
          {r.fail_reason}
        </Typography>
      ),
    },
  ];
  const fields = [
    { name: 'task_id', label: t('user.task.taskId') },
    ...(isAdmin
      ? [
          { name: 'channel_id', label: t('user.log.channelId') },
          { name: 'user_id', label: t('user.task.userId') },
        ]
      : []),
  ];
  return (
    <DataTable
      tableId={isAdmin ? 'admin-tasks' : 'user-tasks'}
      columns={columns}
      controls={table}
      query={query}
      rowKey={(r) => r.id}
      filterBar={
        <TaskFilterBar
          key={JSON.stringify(table.state.filters)}
          fields={fields}
          filters={table.state.filters}
          onApply={(next) => table.setFilters(next)}
          onReset={() => table.resetFilters()}
          extra={(draft, set) => (
            <TextField
              select
              size="small"
              label={t('user.task.platform')}
              value={draft.platform ?? ''}
              onChange={(e) => set('platform', e.target.value)}
              sx={{ width: 130 }}
            >
              <MenuItem value="">{t('user.common.all')}</MenuItem>
              {PLATFORMS.map((p) => (
                <MenuItem key={p} value={p}>
                  {t(`user.task.platforms.${p}`)}
                </MenuItem>
              ))}
            </TextField>
          )}
        />
      }
      emptyText={t('user.task.empty')}
    />
  );
}

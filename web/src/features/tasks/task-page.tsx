import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { TaskStatus } from '@switchyard/domain';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../app/session-context';
import { type DataColumn, DataTable, useTableQuery, useTableState } from '../../components/data-table';
import { useQuotaFormat } from '../../lib/quota-format';
import { TaskMediaPreview } from './media-preview';
import { TaskFilterBar } from './task-filter-bar';
import { taskMedia } from './task-media';
import { elapsed, OneLine, TaskProgress, TaskStatusChip, TaskStatusLabel, TimeCell } from './task-status';

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
  properties: unknown;
  channel_id?: number;
}

/** The prompt a task was submitted with, where its provider keeps one in `properties`. */
function promptOf(properties: unknown): string {
  if (typeof properties !== 'object' || properties === null) return '';
  const p = properties as Record<string, unknown>;
  for (const key of ['prompt', 'gpt_description_prompt', 'description']) {
    const v = p[key];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return '';
}

const USER_FILTERS = ['platform', 'task_id', 'action', 'status', 'start_timestamp', 'end_timestamp'] as const;
const ADMIN_FILTERS = [...USER_FILTERS, 'channel_id', 'user_id'] as const;
const PLATFORMS = ['suno', 'kling'] as const;
const TASK_STATUSES = Object.values(TaskStatus).filter((v) => v !== TaskStatus.Unknown);

/** Async tasks (/panel/task): music, lyrics and video tasks, own or (administrators) all. */
export default function TaskPage() {
  const { t } = useTranslation();
  const { isAdmin } = useSession();
  const formatQuota = useQuotaFormat();
  const table = useTableState({ filters: isAdmin ? ADMIN_FILTERS : USER_FILTERS });
  const query = useTableQuery<TaskView>(isAdmin ? '/api/task' : '/api/task/self', table);
  const columns: DataColumn<TaskView>[] = [
    {
      id: 'task_id',
      header: t('user.task.taskId'),
      cell: (r) => <OneLine text={r.task_id} />,
      hideable: false,
    },
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
            cell: (r: TaskView) => r.channel_id ?? '—',
          },
          { id: 'user', header: t('user.log.user'), sortField: 'user_id', cell: (r: TaskView) => r.user_id },
        ]
      : []),
    { id: 'platform', header: t('user.task.platform'), sortField: 'platform', cell: (r) => r.platform },
    { id: 'action', header: t('user.task.type'), cell: (r) => <OneLine text={r.action} maxWidth={120} /> },
    {
      id: 'elapsed',
      header: t('user.task.elapsed'),
      cell: (r) => <OneLine text={elapsed(r.submit_time, r.finish_time)} maxWidth={80} />,
    },
    { id: 'progress', header: t('user.task.progress'), cell: (r) => <TaskProgress value={r.progress} /> },
    { id: 'status', header: t('user.task.status'), cell: (r) => <TaskStatusChip status={r.status} /> },
    { id: 'quota', header: t('user.log.quota'), cell: (r) => formatQuota(r.quota), hiddenByDefault: true },
    {
      id: 'result',
      header: t('user.task.result'),
      // A failed task's result is why it failed: the reason stays in sight in a wide table.
      cell: (r) =>
        r.status === TaskStatus.Failure && r.fail_reason ? (
          <Typography variant="body2" color="error" sx={{ maxWidth: 240 }}>
            {r.fail_reason}
          </Typography>
        ) : (
          <TaskMediaPreview media={taskMedia(r.data)} />
        ),
    },
    {
      id: 'prompt',
      header: t('user.task.prompt'),
      cell: (r) => {
        const prompt = promptOf(r.properties);
        return (
          <Typography variant="body2" noWrap title={prompt} sx={{ maxWidth: 220 }}>
            {prompt || '—'}
          </Typography>
        );
      },
    },
    {
      id: 'fail',
      header: t('user.task.failReason'),
      hiddenByDefault: true,
      cell: (r) => (
        <Typography variant="body2" color="error" noWrap title={r.fail_reason} sx={{ maxWidth: 200 }}>
          {r.fail_reason}
        </Typography>
      ),
    },
  ];
  const fields = [
    { name: 'task_id', label: t('user.task.taskId') },
    { name: 'action', label: t('user.task.type') },
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
          extra={(draft, set) => [
            <TextField
              key="platform"
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
            </TextField>,
            <TextField
              key="status"
              select
              size="small"
              label={t('user.task.status')}
              value={draft.status ?? ''}
              onChange={(e) => set('status', e.target.value)}
              sx={{ width: 130 }}
            >
              <MenuItem value="">{t('user.common.all')}</MenuItem>
              {TASK_STATUSES.map((status) => (
                <MenuItem key={status} value={status}>
                  <TaskStatusLabel status={status} />
                </MenuItem>
              ))}
            </TextField>,
          ]}
        />
      }
      emptyText={t('user.task.empty')}
    />
  );
}

import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { TaskStatus } from '@switchyard/domain';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../app/session-context';
import { type DataColumn, useTableQuery, useTableState } from '../../components/data-table';
import { useQuotaFormat } from '../../lib/quota-format';
import { TaskMediaPreview } from './media-preview';
import { taskMedia } from './task-media';
import { OneLine, TaskProgress, TaskStatusChip, TaskStatusLabel } from './task-status';
import { elapsedColumn, failReasonColumn, TaskTable, timeAndOwnerColumns } from './task-table';

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
    ...timeAndOwnerColumns<TaskView>(t, isAdmin),
    { id: 'platform', header: t('user.task.platform'), sortField: 'platform', cell: (r) => r.platform },
    { id: 'action', header: t('user.task.type'), cell: (r) => <OneLine text={r.action} maxWidth={120} /> },
    elapsedColumn(t),
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
    failReasonColumn(t, true),
  ];
  return (
    <TaskTable
      tableId={isAdmin ? 'admin-tasks' : 'user-tasks'}
      isAdmin={isAdmin}
      columns={columns}
      table={table}
      query={query}
      fields={[
        { name: 'task_id', label: t('user.task.taskId') },
        { name: 'action', label: t('user.task.type') },
      ]}
      extra={(draft, set) => [
        <DraftSelect
          key="platform"
          label={t('user.task.platform')}
          value={draft.platform ?? ''}
          onChange={(v) => set('platform', v)}
          options={PLATFORMS.map((p) => ({ value: p, label: t(`user.task.platforms.${p}`) }))}
        />,
        <DraftSelect
          key="status"
          label={t('user.task.status')}
          value={draft.status ?? ''}
          onChange={(v) => set('status', v)}
          options={TASK_STATUSES.map((status) => ({
            value: status,
            label: <TaskStatusLabel status={status} />,
          }))}
        />,
      ]}
    />
  );
}

/** A choice of the filter bar's draft, '' (the first entry) meaning all. */
function DraftSelect(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: readonly { value: string; label: ReactNode }[];
}) {
  const { t } = useTranslation();
  return (
    <TextField
      select
      size="small"
      label={props.label}
      value={props.value}
      onChange={(e) => props.onChange(e.target.value)}
      sx={{ width: 130 }}
    >
      <MenuItem value="">{t('user.common.all')}</MenuItem>
      {props.options.map((option) => (
        <MenuItem key={option.value} value={option.value}>
          {option.label}
        </MenuItem>
      ))}
    </TextField>
  );
}

import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../app/session-context';
import { type DataColumn, useTableQuery, useTableState } from '../../components/data-table';
import { withBase } from '../../lib/base-path';
import { useQuotaFormat } from '../../lib/quota-format';
import { ImageThumb } from './media-preview';
import { OneLine, TaskProgress, TaskStatusChip } from './task-status';
import { elapsedColumn, failReasonColumn, TaskTable, timeAndOwnerColumns } from './task-table';

interface MidjourneyView {
  id: number;
  code: number;
  user_id: number;
  action: string;
  mj_id: string;
  prompt: string;
  prompt_en: string;
  submit_time: number;
  finish_time: number;
  image_url: string;
  status: string;
  progress: string;
  fail_reason: string;
  quota: number;
  channel_id?: number;
}

const USER_FILTERS = ['mj_id', 'start_timestamp', 'end_timestamp'] as const;
const ADMIN_FILTERS = [...USER_FILTERS, 'channel_id', 'user_id'] as const;

/** Image tasks (/panel/midjourney): own tasks, or every task for administrators. */
export default function MidjourneyPage() {
  const { t } = useTranslation();
  const { isAdmin } = useSession();
  const formatQuota = useQuotaFormat();
  const table = useTableState({ filters: isAdmin ? ADMIN_FILTERS : USER_FILTERS });
  const query = useTableQuery<MidjourneyView>(isAdmin ? '/api/mj' : '/api/mj/self', table);
  const columns: DataColumn<MidjourneyView>[] = [
    {
      id: 'mj_id',
      header: t('user.task.taskId'),
      cell: (r) => <OneLine text={r.mj_id} />,
      sortField: 'mj_id',
      hideable: false,
    },
    ...timeAndOwnerColumns<MidjourneyView>(t, isAdmin),
    {
      id: 'action',
      header: t('user.task.type'),
      sortField: 'action',
      cell: (r) => <OneLine text={r.action} maxWidth={120} />,
    },
    {
      id: 'code',
      header: t('user.task.code'),
      sortField: 'code',
      cell: (r) => r.code,
      hiddenByDefault: true,
    },
    {
      id: 'status',
      header: t('user.task.status'),
      sortField: 'status',
      cell: (r) => <TaskStatusChip status={r.status} />,
    },
    { id: 'progress', header: t('user.task.progress'), cell: (r) => <TaskProgress value={r.progress} /> },
    elapsedColumn(t),
    { id: 'quota', header: t('user.log.quota'), cell: (r) => formatQuota(r.quota), hiddenByDefault: true },
    {
      id: 'image',
      header: t('user.task.result'),
      // The gateway's copy (/mj/image/<id>, fetched through the task's channel), never the upstream's
      // own address: Discord's CDN is often out of the reader's reach, and a self-hosted console asks
      // no other host. Only rows whose upstream gave an http(s) picture have one.
      cell: (r) =>
        /^https?:\/\//i.test(r.image_url) ? (
          <ImageThumb src={withBase(`/mj/image/${encodeURIComponent(r.mj_id)}`)} alt={r.prompt} />
        ) : (
          '—'
        ),
    },
    {
      id: 'prompt',
      header: t('user.task.prompt'),
      cell: (r) => (
        <Typography variant="body2" noWrap title={r.prompt} sx={{ maxWidth: 240 }}>
          {r.prompt}
        </Typography>
      ),
    },
    {
      id: 'prompt_en',
      header: t('user.task.promptEn'),
      hiddenByDefault: true,
      cell: (r) => (
        <Typography variant="body2" noWrap title={r.prompt_en} sx={{ maxWidth: 240 }}>
          {r.prompt_en}
        </Typography>
      ),
    },
    failReasonColumn(t, false),
  ];
  return (
    <TaskTable
      tableId={isAdmin ? 'admin-midjourney' : 'user-midjourney'}
      isAdmin={isAdmin}
      columns={columns}
      table={table}
      query={query}
      fields={[{ name: 'mj_id', label: t('user.task.taskId') }]}
    />
  );
}

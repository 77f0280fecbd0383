import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import KeyboardArrowDown from '@mui/icons-material/KeyboardArrowDown';
import KeyboardArrowRight from '@mui/icons-material/KeyboardArrowRight';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { Fragment, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConfirm } from '../../components/confirm-dialog';
import { useAdminAction } from '../admin/use-admin-action';
import {
  CHANNEL_QUERIES,
  deleteTag,
  setTagEnabled,
  setTagPriority,
  type TagSummary,
  useTagMembers,
  useTags,
} from './api';
import { ChannelStatusChip } from './channel-status';
import { InlineNumber } from './inline-number';

function TagMembers({ tag }: { tag: string }) {
  const { t } = useTranslation();
  const members = useTagMembers(tag);
  if (members.isError) return <Typography color="error">{t('admin.channel.error.tagMembers')}</Typography>;
  return (
    <Table size="small">
      <TableBody>
        {(members.data ?? []).map((c) => (
          <TableRow key={c.id}>
            <TableCell>{c.id}</TableCell>
            <TableCell>{c.name}</TableCell>
            <TableCell>
              <ChannelStatusChip status={c.status} />
            </TableCell>
            <TableCell>{t('admin.channel.priorityValue', { value: c.priority })}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/** Per-tag enable, disable and delete: each tag as one row over its member channels. */
export function ChannelTagsPanel() {
  const { t } = useTranslation();
  const tags = useTags();
  const [open, setOpen] = useState<string | null>(null);
  const [confirm, ask] = useConfirm();
  const setStatus = useAdminAction(setTagEnabled, { invalidate: CHANNEL_QUERIES });
  const setPriority = useAdminAction(setTagPriority, { invalidate: CHANNEL_QUERIES });
  const remove = useAdminAction(deleteTag, {
    invalidate: CHANNEL_QUERIES,
    success: t('admin.common.deleted'),
  });
  const rows: TagSummary[] = tags.data ?? [];
  if (rows.length === 0) return null;
  return (
    <Paper variant="outlined" sx={{ mb: 2 }} data-testid="channel-tags">
      {confirm}
      <Typography variant="subtitle1" sx={{ px: 2, pt: 1.5 }}>
        {t('admin.channel.tags')}
      </Typography>
      {/* On a phone the member count gives way and the actions wrap, so the panel fits the screen. */}
      <Table size="small" sx={{ '& .MuiTableCell-root': { px: { xs: 1, sm: 2 } } }}>
        <TableHead>
          <TableRow>
            <TableCell padding="checkbox" />
            <TableCell>{t('admin.channel.field.tag')}</TableCell>
            <TableCell sx={{ display: { xs: 'none', sm: 'table-cell' } }}>
              {t('admin.channel.tagMembers')}
            </TableCell>
            <TableCell>{t('admin.channel.field.priority')}</TableCell>
            <TableCell align="right">{t('table.actions')}</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((row) => (
            <Fragment key={row.tag}>
              <TableRow data-testid={`tag-${row.tag}`}>
                <TableCell padding="checkbox">
                  <IconButton
                    size="small"
                    aria-label={t(open === row.tag ? 'table.collapse' : 'table.expand')}
                    onClick={() => setOpen(open === row.tag ? null : row.tag)}
                  >
                    {open === row.tag ? <KeyboardArrowDown /> : <KeyboardArrowRight />}
                  </IconButton>
                </TableCell>
                <TableCell>
                  <Chip size="small" label={row.tag} />
                </TableCell>
                <TableCell sx={{ display: { xs: 'none', sm: 'table-cell' } }}>
                  {t('admin.channel.tagCount', { enabled: row.enabled, count: row.count })}
                </TableCell>
                <TableCell>
                  <InlineNumber
                    value={null}
                    min={0}
                    label={t('admin.channel.tagPriority')}
                    onSave={(value) => setPriority.mutateAsync({ tag: row.tag, value })}
                  />
                </TableCell>
                <TableCell align="right" sx={{ whiteSpace: { xs: 'normal', sm: 'nowrap' } }}>
                  <Button size="small" onClick={() => setStatus.mutate({ tag: row.tag, enable: true })}>
                    {t('admin.channel.enableTag')}
                  </Button>
                  <Button
                    size="small"
                    color="warning"
                    onClick={() => setStatus.mutate({ tag: row.tag, enable: false })}
                  >
                    {t('admin.channel.disableTag')}
                  </Button>
                  <IconButton
                    size="small"
                    color="error"
                    aria-label={t('admin.channel.deleteTag')}
                    onClick={async () => {
                      if (await ask(t('admin.channel.confirmDeleteTag', { tag: row.tag })))
                        remove.mutate(row.tag);
                    }}
                  >
                    <DeleteOutline />
                  </IconButton>
                </TableCell>
              </TableRow>
              {open === row.tag && (
                <TableRow>
                  <TableCell colSpan={5} sx={{ bgcolor: 'action.hover' }}>
                    <TagMembers tag={row.tag} />
                  </TableCell>
                </TableRow>
              )}
            </Fragment>
          ))}
        </TableBody>
      </Table>
    </Paper>
  );
}

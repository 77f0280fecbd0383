import AddOutlined from '@mui/icons-material/AddOutlined';
import DeleteOutlined from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import RefreshOutlined from '@mui/icons-material/RefreshOutlined';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import {
  TELEGRAM_BUILTIN_COMMANDS,
  TELEGRAM_PARSE_MODES,
  type TelegramMenuView,
  telegramMenuInput,
} from '@switchyard/domain';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type DataColumn, useTableState } from '../../components/data-table';
import { ListScreen } from '../../components/list-screen';
import { toast } from '../../lib/toast';
import { FormDialog, type FormValues } from '../admin/form-dialog';
import { useAdminAction } from '../admin/use-admin-action';
import {
  deleteTelegramMenu,
  reloadTelegramBot,
  saveTelegramMenu,
  TELEGRAM_PATH,
  useTelegramBotStatus,
  useTelegramMenuPage,
} from './api';

export default function TelegramMenuPage() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const controls = useTableState({ filters: ['keyword'], defaultOrder: '-id' });
  const query = useTelegramMenuPage(controls);
  const status = useTelegramBotStatus();
  const [editing, setEditing] = useState<{ open: boolean; entry: TelegramMenuView | null }>({
    open: false,
    entry: null,
  });
  const remove = useAdminAction(deleteTelegramMenu, {
    invalidate: [TELEGRAM_PATH],
    success: t('admin.common.deleted'),
  });
  const reload = useAdminAction(reloadTelegramBot, {
    invalidate: [TELEGRAM_PATH],
    success: (r) => t(r.status ? 'admin.telegram.reloaded' : 'admin.telegram.reloadedOff'),
  });
  const entry = editing.entry;
  const initial = useMemo<FormValues>(
    () => ({
      command: entry?.command ?? '',
      description: entry?.description ?? '',
      parse_mode: entry?.parse_mode ?? 'MarkdownV2',
      reply_message: entry?.reply_message ?? '',
    }),
    [entry],
  );

  const columns: DataColumn<TelegramMenuView>[] = [
    { id: 'id', header: t('admin.common.id'), cell: (m) => m.id, sortField: 'id', hideable: false },
    {
      id: 'command',
      header: t('admin.telegram.field.command'),
      cell: (m) => `/${m.command}`,
      sortField: 'command',
    },
    { id: 'description', header: t('admin.telegram.field.description'), cell: (m) => m.description },
    { id: 'parse_mode', header: t('admin.telegram.field.parseMode'), cell: (m) => m.parse_mode },
    {
      id: 'reply_message',
      header: t('admin.telegram.field.replyMessage'),
      cell: (m) => (m.reply_message.length > 60 ? `${m.reply_message.slice(0, 60)}…` : m.reply_message),
    },
  ];

  const botState = status.data?.status
    ? t(status.data.is_webhook ? 'admin.telegram.online' : 'admin.telegram.polling')
    : t('admin.telegram.offline');

  return (
    <ListScreen
      tableId="telegram-menu"
      columns={columns}
      controls={controls}
      query={query}
      rowKey={(m) => m.id}
      actions={
        <Stack direction="row" spacing={1}>
          <Button
            variant="outlined"
            startIcon={<RefreshOutlined />}
            disabled={reload.isPending}
            onClick={() => reload.mutate(undefined)}
          >
            {t('admin.telegram.reload')}
          </Button>
          <Button
            variant="contained"
            startIcon={<AddOutlined />}
            onClick={() => setEditing({ open: true, entry: null })}
          >
            {t('admin.telegram.create')}
          </Button>
        </Stack>
      }
      banner={
        <Alert
          severity={status.data?.status ? 'success' : 'info'}
          sx={{ mb: 2 }}
          data-testid="telegram-status"
        >
          {t('admin.telegram.status', { state: botState })}{' '}
          {t('admin.telegram.builtIn', { commands: TELEGRAM_BUILTIN_COMMANDS.map((c) => `/${c}`).join(' ') })}
        </Alert>
      }
      filters={[{ kind: 'search', name: 'keyword', label: t('admin.telegram.search') }]}
      rowActions={[
        {
          label: t('admin.common.edit'),
          icon: <EditOutlined fontSize="small" />,
          run: (m) => setEditing({ open: true, entry: m }),
        },
        {
          label: t('admin.common.delete'),
          icon: <DeleteOutlined fontSize="small" />,
          color: 'error',
          confirm: (m) => t('admin.telegram.confirmDelete', { command: m.command }),
          run: (m) => remove.mutate(m.id),
        },
      ]}
    >
      <FormDialog
        open={editing.open}
        title={t(entry ? 'admin.telegram.editTitle' : 'admin.telegram.createTitle')}
        initial={initial}
        fields={[
          {
            name: 'command',
            label: t('admin.telegram.field.command'),
            required: true,
            helper: t('admin.telegram.commandHint'),
          },
          { name: 'description', label: t('admin.telegram.field.description'), required: true },
          {
            name: 'parse_mode',
            label: t('admin.telegram.field.parseMode'),
            kind: 'select',
            required: true,
            options: TELEGRAM_PARSE_MODES.map((mode) => ({ value: mode, label: mode })),
          },
          {
            name: 'reply_message',
            label: t('admin.telegram.field.replyMessage'),
            kind: 'multiline',
            required: true,
          },
        ]}
        validate={(v): Record<string, string> => {
          const command = String(v.command).trim().replace(/^\//, '');
          return (TELEGRAM_BUILTIN_COMMANDS as readonly string[]).includes(command)
            ? { command: t('admin.telegram.builtInRefused', { command }) }
            : {};
        }}
        toBody={(v) => ({ ...v, id: entry?.id ?? 0 })}
        schema={telegramMenuInput}
        submit={async (body) => {
          await saveTelegramMenu(body);
          toast.success(t(entry ? 'admin.common.saved' : 'admin.common.created'));
          await client.invalidateQueries({ queryKey: [TELEGRAM_PATH] });
        }}
        onClose={() => setEditing({ open: false, entry: null })}
      />
    </ListScreen>
  );
}

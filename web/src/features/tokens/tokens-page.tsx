import Add from '@mui/icons-material/Add';
import ChatOutlined from '@mui/icons-material/ChatOutlined';
import ContentCopy from '@mui/icons-material/ContentCopy';
import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import Search from '@mui/icons-material/Search';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import IconButton from '@mui/material/IconButton';
import InputAdornment from '@mui/material/InputAdornment';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import {
  type CreatedTokenView,
  formatTimestamp,
  NEVER_EXPIRES,
  PLAYGROUND_TOKEN_NAME,
  TokenStatus,
  type TokenView,
} from '@switchyard/domain';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { CopyField } from '../../components/copy-field';
import { type DataColumn, DataTable, useTableState } from '../../components/data-table';
import type { MessageKey } from '../../i18n/message-key';
import { fillChatLink, serverAddress, visibleChatLinks } from '../../lib/chat-links';
import { copyText } from '../../lib/clipboard';
import { useQuotaFormat } from '../../lib/quota-format';
import { useSiteInfo } from '../../lib/site-info';
import { toast } from '../../lib/toast';
import { deleteToken, tokenKey as fetchKey, setTokenStatus, TOKEN_PATH, useTokenPage } from './api';
import { TokenDialog } from './token-dialog';

const STATUS_TEXT: Record<number, MessageKey> = {
  [TokenStatus.Enabled]: 'user.token.statusEnabled',
  [TokenStatus.Disabled]: 'user.token.statusDisabled',
  [TokenStatus.Expired]: 'user.token.statusExpired',
  [TokenStatus.Exhausted]: 'user.token.statusExhausted',
};

function ChatLinkMenu({ token }: { token: TokenView }) {
  const { t } = useTranslation();
  const site = useSiteInfo();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const links = visibleChatLinks(site.chat_links);
  if (links.length === 0) return null;
  const open = async (template: string) => {
    setAnchor(null);
    // Opened before the key arrives so the browser treats it as a user action, not a pop-up.
    const win = window.open('about:blank', '_blank');
    try {
      const key = await fetchKey(token.id);
      const url = fillChatLink(template, key, serverAddress(site.server_address, window.location.origin));
      if (win) win.location.href = url;
      else window.open(url, '_blank');
    } catch {
      win?.close();
    }
  };
  return (
    <>
      <Tooltip title={t('user.token.chat')}>
        <IconButton
          size="small"
          aria-label={t('user.token.chat')}
          onClick={(e) => setAnchor(e.currentTarget)}
        >
          <ChatOutlined fontSize="small" />
        </IconButton>
      </Tooltip>
      <Menu anchorEl={anchor} open={anchor !== null} onClose={() => setAnchor(null)}>
        {links.map((l) => (
          <MenuItem key={`${l.sort}-${l.name}`} onClick={() => void open(l.url)}>
            {l.name}
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}

/** Tokens: the caller's API keys with search, status switch, create/edit, delete, copy and chat links. */
export default function TokensPage() {
  const { t } = useTranslation();
  const formatQuota = useQuotaFormat();
  const queryClient = useQueryClient();
  const table = useTableState({ filters: ['keyword'] });
  const query = useTokenPage(table);
  const [search, setSearch] = useState(table.state.filters.keyword);
  const [editing, setEditing] = useState<TokenView | null | undefined>(undefined);
  const [created, setCreated] = useState<CreatedTokenView | null>(null);
  const [deleting, setDeleting] = useState<TokenView | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: [TOKEN_PATH] });

  const setStatus = useMutation({
    mutationFn: setTokenStatus,
    onSuccess: () => {
      toast.success(t('user.common.saved'));
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: deleteToken,
    onSuccess: () => {
      setDeleting(null);
      toast.success(t('user.common.deleted'));
      void refresh();
    },
  });

  const columns: DataColumn<TokenView>[] = [
    {
      id: 'name',
      header: t('user.token.name'),
      // The playground's own token is marked, so nobody takes it for a token they made and forgot.
      cell: (r) =>
        r.name === PLAYGROUND_TOKEN_NAME ? (
          <Tooltip title={t('user.token.playgroundHint')}>
            <Chip
              size="small"
              color="info"
              label={t('user.token.playgroundChip')}
              data-testid="token-playground"
            />
          </Tooltip>
        ) : (
          r.name
        ),
      sortField: 'name',
      hideable: false,
    },
    {
      id: 'group',
      header: t('user.token.group'),
      cell: (r) => (r.group ? <Chip size="small" label={r.group} /> : t('user.token.groupDefault')),
    },
    {
      id: 'status',
      header: t('user.token.status'),
      sortField: 'status',
      cell: (r) => (
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <Switch
            size="small"
            checked={r.status === TokenStatus.Enabled}
            disabled={setStatus.isPending}
            onChange={(e) =>
              setStatus.mutate({
                id: r.id,
                status: e.target.checked ? TokenStatus.Enabled : TokenStatus.Disabled,
              })
            }
            slotProps={{ input: { 'aria-label': t('user.token.status') } }}
            data-testid={`token-status-${r.id}`}
          />
          <Chip
            size="small"
            variant="outlined"
            color={
              r.status === TokenStatus.Enabled
                ? 'success'
                : r.status === TokenStatus.Disabled
                  ? 'default'
                  : 'warning'
            }
            label={t(STATUS_TEXT[r.status] ?? 'user.common.unknown')}
          />
        </Stack>
      ),
    },
    {
      id: 'used',
      header: t('user.token.used'),
      sortField: 'used_quota',
      cell: (r) => formatQuota(r.used_quota),
    },
    {
      id: 'remain',
      header: t('user.token.remaining'),
      sortField: 'remain_quota',
      cell: (r) => (r.unlimited_quota ? t('user.token.unlimited') : formatQuota(r.remain_quota)),
    },
    {
      id: 'created',
      header: t('user.token.created'),
      sortField: 'created_time',
      cell: (r) => formatTimestamp(r.created_time),
    },
    {
      id: 'expires',
      header: t('user.token.expires'),
      sortField: 'expired_time',
      cell: (r) =>
        r.expired_time === NEVER_EXPIRES ? t('user.token.never') : formatTimestamp(r.expired_time),
    },
  ];

  const copyKey = async (token: TokenView) => {
    const key = await fetchKey(token.id);
    await copyText(key, t('user.token.key'));
  };

  return (
    <>
      <DataTable
        tableId="user-tokens"
        columns={columns}
        controls={table}
        query={query}
        rowKey={(r) => r.id}
        filterBar={
          <Stack
            component="form"
            direction="row"
            spacing={1}
            onSubmit={(e) => {
              e.preventDefault();
              table.setFilters({ keyword: search.trim() });
            }}
          >
            <TextField
              size="small"
              placeholder={t('user.token.search')}
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              slotProps={{
                htmlInput: { 'data-testid': 'token-search' },
                input: {
                  startAdornment: (
                    <InputAdornment position="start">
                      <Search fontSize="small" />
                    </InputAdornment>
                  ),
                },
              }}
            />
            <Button type="submit" variant="outlined">
              {t('user.common.search')}
            </Button>
          </Stack>
        }
        toolbar={
          <Button
            variant="contained"
            startIcon={<Add />}
            onClick={() => setEditing(null)}
            data-testid="token-create"
          >
            {t('user.token.create')}
          </Button>
        }
        rowActions={(r) => (
          <Stack direction="row" spacing={0.5} sx={{ justifyContent: 'flex-end' }}>
            <Tooltip title={t('user.token.copy')}>
              <IconButton
                size="small"
                aria-label={t('user.token.copy')}
                onClick={() => void copyKey(r)}
                data-testid={`token-copy-${r.id}`}
              >
                <ContentCopy fontSize="small" />
              </IconButton>
            </Tooltip>
            <ChatLinkMenu token={r} />
            <Tooltip title={t('user.common.edit')}>
              <IconButton size="small" aria-label={t('user.common.edit')} onClick={() => setEditing(r)}>
                <EditOutlined fontSize="small" />
              </IconButton>
            </Tooltip>
            <Tooltip title={t('user.common.delete')}>
              <IconButton
                size="small"
                color="error"
                aria-label={t('user.common.delete')}
                onClick={() => setDeleting(r)}
                data-testid={`token-delete-${r.id}`}
              >
                <DeleteOutline fontSize="small" />
              </IconButton>
            </Tooltip>
          </Stack>
        )}
        emptyText={t('user.token.empty')}
      />
      {editing !== undefined && (
        <TokenDialog
          token={editing}
          onClose={() => setEditing(undefined)}
          onSaved={(newToken) => {
            setEditing(undefined);
            toast.success(t('user.common.saved'));
            if (newToken) setCreated(newToken);
            void refresh();
          }}
        />
      )}
      <Dialog open={created !== null} onClose={() => setCreated(null)} maxWidth="sm" fullWidth>
        <DialogTitle>{t('user.token.createdTitle')}</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            <Alert severity="success">{t('user.token.createdHint')}</Alert>
            <CopyField
              label={t('user.token.keyLabel')}
              value={created?.key ?? ''}
              name={t('user.token.key')}
              testId="token-created-key"
            />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setCreated(null)} data-testid="token-created-close">
            {t('user.common.close')}
          </Button>
        </DialogActions>
      </Dialog>
      <ConfirmDialog
        open={deleting !== null}
        title={t('user.token.deleteTitle')}
        text={t('user.token.deleteText', { name: deleting?.name ?? '' })}
        confirmLabel={t('user.common.delete')}
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
        onClose={() => setDeleting(null)}
      />
    </>
  );
}

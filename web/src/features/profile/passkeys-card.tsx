import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import CardHeader from '@mui/material/CardHeader';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { formatTimestamp } from '@switchyard/domain';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, showErrorToast } from '../../lib/api-error';
import { toast } from '../../lib/toast';
import type { PasskeySummary } from '../auth/api';
import { registerPasskey } from '../auth/passkey';
import { deletePasskey, PASSKEYS_KEY, renamePasskey, usePasskeys } from './api';

function PasskeyRow({ passkey }: { passkey: PasskeySummary }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: PASSKEYS_KEY });
  const rename = useMutation({
    mutationFn: (alias: string) => renamePasskey(passkey.id, alias),
    onSuccess: () => {
      setEditing(null);
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => deletePasskey(passkey.id),
    onSuccess: () => {
      toast.success(t('user.profile.passkeyDeleted'));
      void refresh();
    },
  });
  return (
    <ListItem data-testid="passkey-row" disableGutters>
      {editing === null ? (
        <ListItemText
          primary={passkey.alias}
          secondary={
            passkey.last_used_time
              ? `${t('user.profile.passkeyLastUsed')}: ${formatTimestamp(passkey.last_used_time)}`
              : formatTimestamp(passkey.created_time)
          }
        />
      ) : (
        <TextField
          size="small"
          label={t('user.profile.passkeyName')}
          value={editing}
          onChange={(e) => setEditing(e.target.value)}
          slotProps={{ htmlInput: { 'data-testid': 'passkey-alias-edit', maxLength: 64 } }}
          sx={{ flex: 1, mr: 1 }}
        />
      )}
      <Stack direction="row" spacing={1}>
        {editing === null ? (
          <Button size="small" onClick={() => setEditing(passkey.alias)}>
            {t('user.profile.passkeyRename')}
          </Button>
        ) : (
          <Button
            size="small"
            disabled={!editing.trim() || rename.isPending}
            onClick={() => rename.mutate(editing)}
          >
            {t('common.confirm')}
          </Button>
        )}
        <Button size="small" color="warning" disabled={remove.isPending} onClick={() => remove.mutate()}>
          {t('user.profile.passkeyDelete')}
        </Button>
      </Stack>
    </ListItem>
  );
}

/** The signed-in user's passkeys: add one on this device, rename, delete (never the last way in). */
export function PasskeysCard() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [alias, setAlias] = useState('');
  const list = usePasskeys();
  const add = useMutation({
    mutationFn: () => registerPasskey(alias.trim()),
    onSuccess: () => {
      setAlias('');
      toast.success(t('user.profile.passkeyAdded'));
      void queryClient.invalidateQueries({ queryKey: PASSKEYS_KEY });
    },
    // The api client reported its own failures; the browser's (a cancelled prompt) are shown here.
    onError: (error) => {
      if (!(error instanceof ApiError)) showErrorToast(error);
    },
  });
  return (
    <Card data-testid="profile-passkeys">
      <CardHeader title={t('user.profile.passkeysTitle')} subheader={t('user.profile.passkeysHint')} />
      <CardContent>
        <Stack direction="row" spacing={1} sx={{ mb: 1 }}>
          <TextField
            size="small"
            label={t('user.profile.passkeyName')}
            value={alias}
            onChange={(e) => setAlias(e.target.value)}
            slotProps={{ htmlInput: { 'data-testid': 'passkey-alias', maxLength: 64 } }}
            sx={{ flex: 1 }}
          />
          <Button
            variant="contained"
            data-testid="passkey-add"
            disabled={add.isPending}
            onClick={() => add.mutate()}
          >
            {t('user.profile.passkeyAdd')}
          </Button>
        </Stack>
        {list.data && list.data.length === 0 && (
          <Typography color="text.secondary">{t('user.profile.passkeyNone')}</Typography>
        )}
        <List dense>
          {list.data?.map((p) => (
            <PasskeyRow key={p.id} passkey={p} />
          ))}
        </List>
      </CardContent>
    </Card>
  );
}

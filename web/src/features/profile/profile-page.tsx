import WeChat from '@mui/icons-material/ChatBubbleOutlined';
import GitHub from '@mui/icons-material/GitHub';
import KeyOutlined from '@mui/icons-material/KeyOutlined';
import MailOutline from '@mui/icons-material/MailOutlined';
import Telegram from '@mui/icons-material/Telegram';
import VerifiedUserOutlined from '@mui/icons-material/VerifiedUserOutlined';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import CardHeader from '@mui/material/CardHeader';
import Chip from '@mui/material/Chip';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { type ProfileForm, profileForm, type SelfUser } from '@switchyard/domain';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../app/session-context';
import { CopyField } from '../../components/copy-field';
import { basePath } from '../../lib/base-path';
import { copyText } from '../../lib/clipboard';
import { schemaResolver } from '../../lib/form-resolver';
import { type SiteInfo, useSiteInfo } from '../../lib/site-info';
import { toast } from '../../lib/toast';
import { selfQueryKey, useSelf } from '../account/api';
import { InviteLinkCard } from '../account/invite-link-card';
import { fetchOAuthState, fetchOidcEndpoint } from '../auth/api';
import { githubAuthorizeUrl, larkAuthorizeUrl } from '../auth/oauth';
import { WechatLoginDialog } from '../auth/wechat-login-dialog';
import { generateAccessToken, saveProfile, unbindAccount } from './api';
import { EmailBindDialog } from './email-bind-dialog';
import { PasskeysCard } from './passkeys-card';

function ProfileFormCard({ self }: { self: SelfUser }) {
  const { t } = useTranslation();
  const { signIn } = useSession();
  const queryClient = useQueryClient();
  const { register, handleSubmit, formState, reset } = useForm<ProfileForm>({
    resolver: schemaResolver(profileForm),
    defaultValues: { username: self.username, display_name: self.display_name, password: '' },
  });
  useEffect(() => {
    reset({ username: self.username, display_name: self.display_name, password: '' });
  }, [self.username, self.display_name, reset]);
  const save = useMutation({
    mutationFn: (values: ProfileForm) => saveProfile(values),
    onSuccess: (user) => {
      queryClient.setQueryData(selfQueryKey, user);
      signIn(user);
      toast.success(t('user.profile.saved'));
    },
  });
  const { errors } = formState;
  return (
    <Card>
      <CardHeader title={t('user.profile.infoTitle')} />
      <CardContent>
        <Stack component="form" spacing={2} noValidate onSubmit={handleSubmit((v) => save.mutate(v))}>
          <TextField
            label={t('user.profile.username')}
            autoComplete="username"
            error={!!errors.username}
            helperText={errors.username?.message ?? t('user.profile.usernameHint')}
            slotProps={{ htmlInput: { 'data-testid': 'profile-username' } }}
            {...register('username')}
          />
          <TextField
            label={t('user.profile.displayName')}
            error={!!errors.display_name}
            helperText={errors.display_name?.message}
            slotProps={{ htmlInput: { 'data-testid': 'profile-display-name' } }}
            {...register('display_name')}
          />
          <TextField
            label={t('user.profile.password')}
            type="password"
            autoComplete="new-password"
            error={!!errors.password}
            helperText={errors.password?.message ?? t('user.profile.passwordHint')}
            slotProps={{ htmlInput: { 'data-testid': 'profile-password' } }}
            {...register('password')}
          />
          <Box>
            <Button type="submit" variant="contained" disabled={save.isPending} data-testid="profile-save">
              {t('user.common.save')}
            </Button>
          </Box>
        </Stack>
      </CardContent>
    </Card>
  );
}

function AccessTokenCard({ self }: { self: SelfUser }) {
  const { t } = useTranslation();
  const [token, setToken] = useState('');
  const generate = useMutation({
    mutationFn: generateAccessToken,
    onSuccess: (value) => {
      setToken(value);
      void copyText(value, t('user.profile.accessToken'));
    },
  });
  return (
    <Card>
      <CardHeader title={t('user.profile.accessTokenTitle')} subheader={t('user.profile.accessTokenHint')} />
      <CardContent>
        <Stack spacing={2}>
          {token ? (
            <>
              <Alert severity="warning">{t('user.profile.accessTokenOnce')}</Alert>
              <CopyField
                label={t('user.profile.accessTokenTitle')}
                value={token}
                name={t('user.profile.accessToken')}
                testId="profile-access-token"
              />
            </>
          ) : (
            self.has_access_token && <Alert severity="info">{t('user.profile.accessTokenExists')}</Alert>
          )}
          <Box>
            <Button
              variant="outlined"
              startIcon={<KeyOutlined />}
              disabled={generate.isPending}
              onClick={() => generate.mutate()}
              data-testid="profile-generate-token"
            >
              {t(self.has_access_token || token ? 'user.profile.regenerate' : 'user.profile.generate')}
            </Button>
          </Box>
        </Stack>
      </CardContent>
    </Card>
  );
}

type Provider = 'github' | 'wechat' | 'lark' | 'oidc';

/** Where "bind" sends the browser: the same redirect as the login page's button, made while signed in. */
function bindTarget(provider: Provider, site: SiteInfo): (() => Promise<string>) | undefined {
  if (provider === 'github' && site.github_oauth)
    return async () => githubAuthorizeUrl(site.github_client_id, await fetchOAuthState());
  if (provider === 'lark' && site.lark_login)
    return async () =>
      larkAuthorizeUrl(site.lark_client_id, await fetchOAuthState(), window.location.origin, basePath);
  if (provider === 'oidc' && site.oidc_auth) return fetchOidcEndpoint;
  return undefined;
}

function BindingsCard({ self }: { self: SelfUser }) {
  const { t } = useTranslation();
  const site = useSiteInfo();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [wechatOpen, setWechatOpen] = useState(false);
  const [emailOpen, setEmailOpen] = useState(false);
  const unbind = useMutation({
    mutationFn: (type: Provider) => unbindAccount(type),
    onSuccess: () => {
      toast.success(t('user.profile.unbound'));
      void queryClient.invalidateQueries({ queryKey: selfQueryKey });
    },
  });
  const rows: { id: string; icon: ReactNode; label: string; value: string; provider?: Provider }[] = [
    { id: 'email', icon: <MailOutline />, label: t('user.profile.bindEmail'), value: self.email },
    {
      id: 'github',
      icon: <GitHub />,
      label: t('user.profile.bindGithub'),
      value: self.github_id,
      provider: 'github',
    },
    {
      id: 'wechat',
      icon: <WeChat />,
      label: t('user.profile.bindWechat'),
      value: self.wechat_id,
      provider: 'wechat',
    },
    {
      id: 'lark',
      icon: <VerifiedUserOutlined />,
      label: t('user.profile.bindLark'),
      value: self.lark_id,
      provider: 'lark',
    },
    {
      id: 'oidc',
      icon: <VerifiedUserOutlined />,
      label: t('user.profile.bindOidc'),
      value: self.oidc_id,
      provider: 'oidc',
    },
    {
      id: 'telegram',
      icon: <Telegram />,
      label: t('user.profile.bindTelegram'),
      value: self.telegram_id ? String(self.telegram_id) : '',
    },
  ];
  // A failed call has already been reported by the api client; the redirect is simply not made.
  const startBind = (target: () => Promise<string>) => async () => {
    setBusy(true);
    try {
      window.location.assign(await target());
    } catch {
      setBusy(false);
    }
  };
  return (
    <Card>
      <CardHeader title={t('user.profile.bindingsTitle')} subheader={t('user.profile.bindingsHint')} />
      <List dense data-testid="profile-bindings">
        {rows.map((row) => {
          const target = row.provider && !row.value ? bindTarget(row.provider, site) : undefined;
          const provider = row.provider;
          return (
            <ListItem
              key={row.id}
              data-testid={`binding-${row.id}`}
              secondaryAction={
                <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                  <Chip
                    size="small"
                    color={row.value ? 'success' : 'default'}
                    label={row.value ? t('user.profile.bound') : t('user.profile.notBound')}
                  />
                  {row.id === 'email' && (
                    <Button size="small" data-testid="email-bind-open" onClick={() => setEmailOpen(true)}>
                      {row.value ? t('user.profile.changeEmail') : t('user.profile.bind')}
                    </Button>
                  )}
                  {row.id === 'telegram' && !row.value && site.telegram_bot && (
                    <Button
                      size="small"
                      href={`https://t.me/${encodeURIComponent(site.telegram_bot)}`}
                      target="_blank"
                      rel="noopener noreferrer"
                    >
                      {t('user.profile.bind')}
                    </Button>
                  )}
                  {row.provider === 'wechat' && !row.value && site.wechat_login && (
                    <Button size="small" onClick={() => setWechatOpen(true)}>
                      {t('user.profile.bind')}
                    </Button>
                  )}
                  {target && (
                    <Button size="small" disabled={busy} onClick={startBind(target)}>
                      {t('user.profile.bind')}
                    </Button>
                  )}
                  {provider && row.value && (
                    <Button
                      size="small"
                      color="warning"
                      disabled={unbind.isPending}
                      onClick={() => unbind.mutate(provider)}
                    >
                      {t('user.profile.unbind')}
                    </Button>
                  )}
                </Stack>
              }
            >
              <ListItemIcon>{row.icon}</ListItemIcon>
              <ListItemText
                primary={row.label}
                secondary={
                  row.value ||
                  (row.id === 'telegram' && site.telegram_bot
                    ? t('user.profile.telegramHint', { bot: site.telegram_bot })
                    : undefined)
                }
              />
            </ListItem>
          );
        })}
      </List>
      <EmailBindDialog
        open={emailOpen}
        onClose={() => setEmailOpen(false)}
        onBound={() => {
          setEmailOpen(false);
          void queryClient.invalidateQueries({ queryKey: selfQueryKey });
        }}
      />
      {site.wechat_login && (
        <WechatLoginDialog
          open={wechatOpen}
          qrCode={site.wechat_qrcode}
          onClose={() => setWechatOpen(false)}
          onBound={() => {
            setWechatOpen(false);
            void queryClient.invalidateQueries({ queryKey: selfQueryKey });
          }}
        />
      )}
    </Card>
  );
}

/** The profile: username >= 3, password >= 8; access token; bindings; invite link. */
export default function ProfilePage() {
  const { data: self } = useSelf();
  const site = useSiteInfo();
  if (!self) return null;
  return (
    <Box
      sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', lg: '1fr 1fr' }, alignItems: 'start' }}
    >
      <ProfileFormCard self={self} />
      <Box sx={{ display: 'grid', gap: 3 }}>
        <AccessTokenCard self={self} />
        <InviteLinkCard testId="profile-invite-link" />
        <BindingsCard self={self} />
        {site.passkey_login && <PasskeysCard />}
      </Box>
    </Box>
  );
}

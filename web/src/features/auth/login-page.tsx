import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { LoginInput } from '@switchyard/domain';
import { useMutation } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate } from 'react-router';
import { PANEL_BASE } from '../../app/panel-paths';
import { useSession } from '../../app/session-context';
import { lazySchema, schemaResolver } from '../../lib/form-resolver';
import { useSiteInfo } from '../../lib/site-info';
import { toast } from '../../lib/toast';
import { signInWithPassword } from './api';
import { AuthCard } from './auth-card';
import { ThirdPartyLogin } from './third-party-login';

export default function LoginPage() {
  const { t } = useTranslation();
  const site = useSiteInfo();
  const { signIn } = useSession();
  const navigate = useNavigate();
  const { register, handleSubmit, formState } = useForm<LoginInput>({
    resolver: schemaResolver(
      lazySchema(() => import('@switchyard/domain/schemas/user').then((m) => m.loginInput)),
    ),
    defaultValues: { username: '', password: '' },
  });
  // A failed login says nothing more than the response handler's toast.
  const login = useMutation({
    mutationFn: (values: LoginInput) => signInWithPassword(values),
    onSuccess: (user) => {
      signIn(user);
      // A failed attempt's error must not linger over the console once signed in.
      toast.closeAll();
      toast.success(t('auth.login.success'));
      navigate(PANEL_BASE);
    },
  });
  const { errors } = formState;

  return (
    <AuthCard title={t('auth.login.title')} subtitle={t('auth.login.subtitle')}>
      {site.password_login_enabled ? (
        <Stack
          component="form"
          spacing={2}
          noValidate
          onSubmit={handleSubmit((values) => login.mutate(values))}
        >
          <TextField
            label={t('auth.login.username')}
            autoComplete="username"
            autoFocus
            error={!!errors.username}
            helperText={errors.username?.message}
            slotProps={{ htmlInput: { 'data-testid': 'login-username' } }}
            {...register('username')}
          />
          <TextField
            label={t('auth.login.password')}
            type="password"
            autoComplete="current-password"
            error={!!errors.password}
            helperText={errors.password?.message}
            slotProps={{ htmlInput: { 'data-testid': 'login-password' } }}
            {...register('password')}
          />
          <Link component={RouterLink} to="/reset" variant="body2" sx={{ alignSelf: 'flex-end' }}>
            {t('auth.login.forgot')}
          </Link>
          <Button
            type="submit"
            variant="contained"
            size="large"
            disabled={login.isPending}
            data-testid="login-submit"
          >
            {t('auth.login.submit')}
          </Button>
        </Stack>
      ) : (
        <Alert severity="info">{t('auth.login.passwordLoginDisabled')}</Alert>
      )}
      <ThirdPartyLogin site={site} />
      {site.register_enabled && (
        <Typography variant="body2" sx={{ mt: 3, textAlign: 'center' }}>
          {t('auth.login.noAccount')}{' '}
          <Link component={RouterLink} to="/register">
            {t('auth.login.register')}
          </Link>
        </Typography>
      )}
    </AuthCard>
  );
}

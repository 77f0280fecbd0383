import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { type RegisterInput, registerForm } from '@switchyard/domain';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router';
import { schemaResolver } from '../../lib/form-resolver';
import { useSiteInfo } from '../../lib/site-info';
import { StorageKey, writeText } from '../../lib/storage';
import { toast } from '../../lib/toast';
import { signUp as requestSignUp, sendVerificationCode } from './api';
import { AuthCard } from './auth-card';
import { Turnstile } from './turnstile';
import { useCountdown } from './use-countdown';

interface RegisterValues {
  username: string;
  email: string;
  verification_code: string;
  password: string;
  password2: string;
}

type RegisterOutput = RegisterInput & { password2: string };

const RESEND_SECONDS = 60;

/** The shared rule, plus email and code when the site requires email verification. */
function registerSchema(emailVerification: boolean) {
  return registerForm.superRefine((values, ctx) => {
    if (!emailVerification) return;
    for (const field of ['email', 'verification_code'] as const) {
      if (!values[field]) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: 'required',
          params: { i18nKey: 'validation.required' },
        });
      }
    }
  });
}

export default function RegisterPage() {
  const { t } = useTranslation();
  const site = useSiteInfo();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [turnstileToken, setTurnstileToken] = useState('');
  const [resendIn, startResend] = useCountdown();
  const verify = site.email_verification;

  // An invitation link's ?aff= is remembered and sent with the registration.
  const aff = params.get('aff');
  useEffect(() => {
    if (aff) writeText(StorageKey.aff, aff);
  }, [aff]);

  const resolver = useMemo(
    () => schemaResolver<RegisterValues, RegisterOutput>(registerSchema(verify)),
    [verify],
  );
  const { register, handleSubmit, formState, trigger, getValues } = useForm<
    RegisterValues,
    unknown,
    RegisterOutput
  >({
    resolver,
    defaultValues: { username: '', email: '', verification_code: '', password: '', password2: '' },
  });
  const { errors } = formState;

  const botCheckPassed = () => {
    if (!site.turnstile_check || turnstileToken) return true;
    toast.info(t('auth.botCheckPending'));
    return false;
  };

  const sendCode = useMutation({
    mutationFn: (email: string) => sendVerificationCode(email, turnstileToken),
    onSuccess: () => {
      toast.success(t('auth.register.codeSent'));
      startResend(RESEND_SECONDS);
    },
  });

  const signUp = useMutation({
    mutationFn: (values: RegisterOutput) => requestSignUp(values, turnstileToken),
    onSuccess: () => {
      toast.success(t('auth.register.success'));
      navigate('/login');
    },
  });

  if (!site.register_enabled || !site.password_register_enabled) {
    return (
      <AuthCard title={t('auth.register.title')}>
        <Alert severity="info">{t('auth.register.disabled')}</Alert>
      </AuthCard>
    );
  }

  const field = (name: keyof RegisterValues) => ({
    error: !!errors[name],
    helperText: errors[name]?.message,
    slotProps: { htmlInput: { 'data-testid': `register-${name}` } },
    ...register(name),
  });

  return (
    <AuthCard title={t('auth.register.title')} subtitle={t('auth.register.subtitle')}>
      <Stack
        component="form"
        spacing={2}
        noValidate
        onSubmit={handleSubmit((values) => botCheckPassed() && signUp.mutate(values))}
      >
        <TextField
          label={t('auth.register.username')}
          autoComplete="username"
          autoFocus
          {...field('username')}
        />
        {verify && (
          <>
            <TextField
              label={t('auth.register.email')}
              type="email"
              autoComplete="email"
              {...field('email')}
            />
            <Stack direction="row" spacing={1} sx={{ alignItems: 'flex-start' }}>
              <TextField
                label={t('auth.register.code')}
                sx={{ flexGrow: 1 }}
                {...field('verification_code')}
              />
              <Button
                variant="outlined"
                sx={{ height: 56, flexShrink: 0 }}
                disabled={resendIn > 0 || sendCode.isPending}
                onClick={async () => {
                  if ((await trigger('email')) && getValues('email') && botCheckPassed()) {
                    sendCode.mutate(getValues('email'));
                  }
                }}
              >
                {resendIn > 0
                  ? t('auth.register.resendIn', { count: resendIn })
                  : t('auth.register.sendCode')}
              </Button>
            </Stack>
          </>
        )}
        <TextField
          label={t('auth.register.password')}
          type="password"
          autoComplete="new-password"
          {...field('password')}
        />
        <TextField
          label={t('auth.register.password2')}
          type="password"
          autoComplete="new-password"
          {...field('password2')}
        />
        {site.turnstile_check && <Turnstile siteKey={site.turnstile_site_key} onToken={setTurnstileToken} />}
        <Button
          type="submit"
          variant="contained"
          size="large"
          disabled={signUp.isPending}
          data-testid="register-submit"
        >
          {t('auth.register.submit')}
        </Button>
      </Stack>
      <Typography variant="body2" sx={{ mt: 3, textAlign: 'center' }}>
        {t('auth.register.hasAccount')}{' '}
        <Link component={RouterLink} to="/login">
          {t('auth.register.login')}
        </Link>
      </Typography>
    </AuthCard>
  );
}

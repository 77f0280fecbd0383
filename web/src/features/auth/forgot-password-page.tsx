import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { resetRequestInput } from '@switchyard/domain';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { schemaResolver } from '../../lib/form-resolver';
import { useSiteInfo } from '../../lib/site-info';
import { toast } from '../../lib/toast';
import { sendResetMail } from './api';
import { AuthCard } from './auth-card';
import { Turnstile } from './turnstile';
import { useCountdown } from './use-countdown';

const RESEND_SECONDS = 30;

export default function ForgotPasswordPage() {
  const { t } = useTranslation();
  const site = useSiteInfo();
  const [turnstileToken, setTurnstileToken] = useState('');
  const [resendIn, startResend] = useCountdown();
  const { register, handleSubmit, formState } = useForm<{ email: string }>({
    resolver: schemaResolver(resetRequestInput),
    defaultValues: { email: '' },
  });
  const send = useMutation({
    mutationFn: ({ email }: { email: string }) => sendResetMail(email, turnstileToken),
    onSuccess: () => {
      toast.success(t('auth.forgot.sent'));
      startResend(RESEND_SECONDS);
    },
  });

  return (
    <AuthCard title={t('auth.forgot.title')} subtitle={t('auth.forgot.subtitle')}>
      <Stack
        component="form"
        spacing={2}
        noValidate
        onSubmit={handleSubmit((values) => {
          if (site.turnstile_check && !turnstileToken) toast.info(t('auth.botCheckPending'));
          else send.mutate(values);
        })}
      >
        <TextField
          label={t('auth.forgot.email')}
          type="email"
          autoComplete="email"
          autoFocus
          error={!!formState.errors.email}
          helperText={formState.errors.email?.message}
          {...register('email')}
        />
        {site.turnstile_check && <Turnstile siteKey={site.turnstile_site_key} onToken={setTurnstileToken} />}
        <Button type="submit" variant="contained" size="large" disabled={resendIn > 0 || send.isPending}>
          {resendIn > 0 ? t('auth.forgot.resendIn', { count: resendIn }) : t('auth.forgot.submit')}
        </Button>
        <Link component={RouterLink} to="/login" variant="body2" sx={{ alignSelf: 'center' }}>
          {t('auth.forgot.backToLogin')}
        </Link>
      </Stack>
    </AuthCard>
  );
}

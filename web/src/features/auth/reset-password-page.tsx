import ContentCopy from '@mui/icons-material/ContentCopy';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import InputAdornment from '@mui/material/InputAdornment';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { ErrorCode } from '@switchyard/domain';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useSearchParams } from 'react-router';
import { ApiError } from '../../lib/api-error';
import { copyText } from '../../lib/clipboard';
import { resetPassword } from './api';
import { AuthCard } from './auth-card';

/** Reached from the mailed link /user/reset?email=..&token=..; the server chooses the new password. */
export default function ResetPasswordPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const email = params.get('email')?.trim() ?? '';
  const token = params.get('token')?.trim() ?? '';
  const reset = useMutation({ mutationFn: () => resetPassword(email, token) });
  const rejected =
    reset.error instanceof ApiError &&
    (reset.error.code === ErrorCode.invalidResetLink || reset.error.status === 400);

  if (!email || !token || rejected) {
    return (
      <AuthCard title={t('auth.reset.title')}>
        <Alert severity="error" data-testid="reset-invalid">
          {t('auth.reset.invalidLink')}
        </Alert>
        <Button component={RouterLink} to="/reset" sx={{ mt: 2 }}>
          {t('auth.forgot.title')}
        </Button>
      </AuthCard>
    );
  }

  const password = reset.data;
  return (
    <AuthCard title={t('auth.reset.title')} subtitle={t('auth.reset.confirmFor', { email })}>
      {password ? (
        <Stack spacing={2}>
          <Typography>{t('auth.reset.done')}</Typography>
          <TextField
            label={t('auth.reset.newPassword')}
            value={password}
            slotProps={{
              htmlInput: { readOnly: true, 'data-testid': 'reset-new-password' },
              input: {
                endAdornment: (
                  <InputAdornment position="end">
                    <IconButton
                      aria-label={t('common.copy')}
                      onClick={() => void copyText(password, t('auth.reset.passwordName'))}
                    >
                      <ContentCopy />
                    </IconButton>
                  </InputAdornment>
                ),
              },
            }}
          />
          <Button variant="contained" component={RouterLink} to="/login">
            {t('auth.reset.toLogin')}
          </Button>
        </Stack>
      ) : (
        <Button
          variant="contained"
          size="large"
          fullWidth
          disabled={reset.isPending}
          onClick={() => reset.mutate()}
          data-testid="reset-confirm"
        >
          {t('auth.reset.submit')}
        </Button>
      )}
    </AuthCard>
  );
}

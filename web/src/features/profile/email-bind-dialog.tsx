import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSiteInfo } from '../../lib/site-info';
import { toast } from '../../lib/toast';
import { sendVerificationCode } from '../auth/api';
import { Turnstile } from '../auth/turnstile';
import { useCountdown } from '../auth/use-countdown';
import { bindEmail } from './api';

const RESEND_SECONDS = 60;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Binds (or changes) the signed-in user's email: a code mailed to the address, then typed back. */
export function EmailBindDialog({
  open,
  onClose,
  onBound,
}: {
  open: boolean;
  onClose: () => void;
  onBound: () => void;
}) {
  const { t } = useTranslation();
  const site = useSiteInfo();
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [turnstileToken, setTurnstileToken] = useState('');
  const [resendIn, startResend] = useCountdown();
  const validEmail = EMAIL.test(email.trim());
  const sendCode = useMutation({
    mutationFn: () => sendVerificationCode(email.trim(), turnstileToken),
    onSuccess: () => {
      toast.success(t('auth.register.codeSent'));
      startResend(RESEND_SECONDS);
    },
  });
  const bind = useMutation({
    mutationFn: () => bindEmail(email.trim(), code.trim()),
    onSuccess: () => {
      toast.success(t('oauth.bound'));
      setCode('');
      onBound();
    },
  });
  const waitingForBotCheck = site.turnstile_check && !turnstileToken;
  return (
    <Dialog open={open} onClose={onClose} maxWidth="xs" fullWidth>
      <DialogTitle>{t('user.profile.bindEmailTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <Stack direction="row" spacing={1} sx={{ alignItems: 'flex-start' }}>
            <TextField
              fullWidth
              type="email"
              label={t('auth.register.email')}
              value={email}
              error={email !== '' && !validEmail}
              slotProps={{ htmlInput: { 'data-testid': 'email-bind-address' } }}
              onChange={(e) => setEmail(e.target.value)}
            />
            <Button
              sx={{ flexShrink: 0, mt: 1 }}
              data-testid="email-bind-send"
              disabled={!validEmail || resendIn > 0 || sendCode.isPending || waitingForBotCheck}
              onClick={() => sendCode.mutate()}
            >
              {resendIn > 0 ? t('auth.register.resendIn', { count: resendIn }) : t('auth.register.sendCode')}
            </Button>
          </Stack>
          <TextField
            fullWidth
            label={t('auth.register.code')}
            value={code}
            slotProps={{ htmlInput: { 'data-testid': 'email-bind-code' } }}
            onChange={(e) => setCode(e.target.value)}
          />
          {site.turnstile_check && (
            <Turnstile siteKey={site.turnstile_site_key} onToken={setTurnstileToken} />
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button
          variant="contained"
          data-testid="email-bind-submit"
          disabled={!validEmail || !code.trim() || bind.isPending}
          onClick={() => bind.mutate()}
        >
          {t('user.profile.bind')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { PANEL_BASE } from '../../app/panel-paths';
import { useSession } from '../../app/session-context';
import { toast } from '../../lib/toast';
import { wechatBind, wechatSignIn } from './api';

/**
 * WeChat verification-code login: scan the account's QR code, then type the code it replies with.
 * With `onBound` it binds WeChat to the signed-in user instead (the profile's bindings).
 */
export function WechatLoginDialog({
  open,
  qrCode,
  onClose,
  onBound,
}: {
  open: boolean;
  qrCode: string;
  onClose: () => void;
  onBound?: () => void;
}) {
  const { t } = useTranslation();
  const { signIn } = useSession();
  const navigate = useNavigate();
  const [code, setCode] = useState('');
  const login = useMutation({
    mutationFn: () => (onBound ? wechatBind(code.trim()) : wechatSignIn(code.trim())),
    onSuccess: (user) => {
      if (onBound) {
        toast.success(t('oauth.bound'));
        setCode('');
        onBound();
        return;
      }
      if (user) signIn(user);
      toast.success(t('auth.login.success'));
      navigate(PANEL_BASE);
    },
  });
  return (
    <Dialog open={open} onClose={onClose} maxWidth="xs" fullWidth>
      <DialogTitle>{t('auth.wechat.title')}</DialogTitle>
      <DialogContent>
        {qrCode && (
          <Box
            component="img"
            src={qrCode}
            alt={t('auth.wechat.qrAlt')}
            sx={{ display: 'block', mx: 'auto', width: 200 }}
          />
        )}
        <Typography variant="body2" color="text.secondary" sx={{ my: 2 }}>
          {t('auth.wechat.scan')}
        </Typography>
        <TextField
          fullWidth
          slotProps={{ htmlInput: { 'data-testid': 'wechat-code' } }}
          label={t('auth.wechat.code')}
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button
          variant="contained"
          data-testid="wechat-submit"
          disabled={!code.trim() || login.isPending}
          onClick={() => login.mutate()}
        >
          {t('auth.wechat.submit')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

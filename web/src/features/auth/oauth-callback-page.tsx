import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { PANEL_BASE } from '../../app/panel-paths';
import { useSession } from '../../app/session-context';
import { toast } from '../../lib/toast';
import { finishOAuth } from './api';
import { isOAuthProvider } from './oauth';
import { useCountdown } from './use-countdown';

const REDIRECT_SECONDS = 3;

/**
 * /oauth/github, /oauth/oidc, /oauth/lark: hands code, state and the
 * affiliate code to the server. The answer "bind" means the account was linked to the signed-in user.
 */
export default function OAuthCallbackPage() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const { signIn } = useSession();
  const [failed, setFailed] = useState(false);
  // The server's reason (a used link, a refused code, an account bound elsewhere) stays on the page.
  const [reason, setReason] = useState('');
  const toLogin = useCallback(() => navigate('/login', { replace: true }), [navigate]);
  const [left, startCountdown] = useCountdown(toLogin);
  // An authorization code is single-use: StrictMode's second effect run must not spend it again.
  const sent = useRef(false);

  const provider = pathname.split('/').pop();
  const code = params.get('code');
  const state = params.get('state');
  // OpenID providers name themselves in the redirect (RFC 9207); the server checks it.
  const iss = params.get('iss');

  useEffect(() => {
    if (sent.current) return;
    sent.current = true;
    if (!isOAuthProvider(provider) || !code) {
      setFailed(true);
      startCountdown(REDIRECT_SECONDS);
      return;
    }
    finishOAuth(provider, { code, state, iss })
      .then((answer) => {
        if (answer.bound) {
          toast.success(t('oauth.bound'));
        } else if (answer.user) {
          signIn(answer.user);
          toast.success(t('auth.login.success'));
        }
        navigate(PANEL_BASE, { replace: true });
      })
      .catch((error: unknown) => {
        setReason(error instanceof Error ? error.message : '');
        setFailed(true);
        startCountdown(REDIRECT_SECONDS);
      });
  }, [provider, code, state, iss, signIn, navigate, startCountdown, t]);

  return (
    <Stack spacing={2} sx={{ alignItems: 'center', py: 10 }} data-testid="oauth-callback">
      {!failed && <CircularProgress />}
      <Typography color={failed ? 'error' : 'text.secondary'}>
        {failed ? t('oauth.failed', { count: left }) : t('oauth.working')}
      </Typography>
      {failed && reason && (
        <Typography color="text.secondary" data-testid="oauth-error">
          {reason}
        </Typography>
      )}
    </Stack>
  );
}

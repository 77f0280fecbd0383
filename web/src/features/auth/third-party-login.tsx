import BusinessCenterOutlined from '@mui/icons-material/BusinessCenterOutlined';
import ChatOutlined from '@mui/icons-material/ChatOutlined';
import GitHub from '@mui/icons-material/GitHub';
import KeyOutlined from '@mui/icons-material/KeyOutlined';
import LoginOutlined from '@mui/icons-material/LoginOutlined';
import Button from '@mui/material/Button';
import Divider from '@mui/material/Divider';
import Stack from '@mui/material/Stack';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { PANEL_BASE } from '../../app/panel-paths';
import { useSession } from '../../app/session-context';
import { ApiError, showErrorToast } from '../../lib/api-error';
import { basePath } from '../../lib/base-path';
import type { SiteInfo } from '../../lib/site-info';
import { toast } from '../../lib/toast';
import { fetchOAuthState, fetchOidcEndpoint } from './api';
import { githubAuthorizeUrl, larkAuthorizeUrl } from './oauth';

// Loaded when first opened: the sign-in page's first load stays small for the sites without WeChat.
const WechatLoginDialog = lazy(() =>
  import('./wechat-login-dialog').then((m) => ({ default: m.WechatLoginDialog })),
);

/** The sign-in buttons the administrator turned on. */
export function ThirdPartyLogin({ site }: { site: SiteInfo }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [wechatOpen, setWechatOpen] = useState(false);
  // Stays mounted after the first opening, so closing plays its transition.
  const [wechatMounted, setWechatMounted] = useState(false);
  const { signIn } = useSession();
  const navigate = useNavigate();
  if (!site.github_oauth && !site.lark_login && !site.oidc_auth && !site.wechat_login && !site.passkey_login)
    return null;

  const withPasskey = async () => {
    setBusy(true);
    try {
      // The WebAuthn client is loaded on use: most visitors of the sign-in page never need it.
      const { passkeySignIn } = await import('./passkey');
      signIn(await passkeySignIn());
      toast.success(t('auth.login.success'));
      navigate(PANEL_BASE);
    } catch (error) {
      // The api client reported its own failures; the browser's (a cancelled prompt) are shown here.
      if (!(error instanceof ApiError)) showErrorToast(error);
      setBusy(false);
    }
  };

  // A failed call has already been reported by the api client; the redirect is simply not made.
  const redirect = (target: () => Promise<string>) => async () => {
    setBusy(true);
    try {
      window.location.assign(await target());
    } catch {
      setBusy(false);
    }
  };

  return (
    <>
      <Divider sx={{ my: 3, color: 'text.secondary', typography: 'body2' }}>{t('auth.login.orUse')}</Divider>
      <Stack spacing={1.5}>
        {site.github_oauth && (
          <Button
            variant="outlined"
            startIcon={<GitHub />}
            data-testid="login-github"
            disabled={busy}
            onClick={redirect(async () => githubAuthorizeUrl(site.github_client_id, await fetchOAuthState()))}
          >
            {t('auth.login.github')}
          </Button>
        )}
        {site.lark_login && (
          <Button
            variant="outlined"
            startIcon={<BusinessCenterOutlined />}
            data-testid="login-lark"
            disabled={busy}
            onClick={redirect(async () =>
              larkAuthorizeUrl(
                site.lark_client_id,
                await fetchOAuthState(),
                window.location.origin,
                basePath,
              ),
            )}
          >
            {t('auth.login.lark')}
          </Button>
        )}
        {site.oidc_auth && (
          <Button
            variant="outlined"
            startIcon={<LoginOutlined />}
            data-testid="login-oidc"
            disabled={busy}
            onClick={redirect(fetchOidcEndpoint)}
          >
            {t('auth.login.oidc')}
          </Button>
        )}
        {site.passkey_login && (
          <Button
            variant="outlined"
            startIcon={<KeyOutlined />}
            data-testid="login-passkey"
            disabled={busy}
            onClick={withPasskey}
          >
            {t('auth.login.passkey')}
          </Button>
        )}
        {site.wechat_login && (
          <Button
            variant="outlined"
            startIcon={<ChatOutlined />}
            data-testid="login-wechat"
            onClick={() => {
              setWechatMounted(true);
              setWechatOpen(true);
            }}
          >
            {t('auth.login.wechat')}
          </Button>
        )}
      </Stack>
      {site.wechat_login && wechatMounted && (
        <Suspense fallback={null}>
          <WechatLoginDialog
            open={wechatOpen}
            qrCode={site.wechat_qrcode}
            onClose={() => setWechatOpen(false)}
          />
        </Suspense>
      )}
    </>
  );
}

import Close from '@mui/icons-material/Close';
import IconButton from '@mui/material/IconButton';
import useMediaQuery from '@mui/material/useMediaQuery';
import { closeSnackbar, enqueueSnackbar, SnackbarProvider } from 'notistack';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { attachToaster, TOAST_AUTO_HIDE_MS, TOAST_MAX } from '../lib/toast';
import { BREAKPOINTS } from './theme';

/** The toasts' provider, loaded and mounted with the first toast (lib/toast.ts). */
export default function Toaster() {
  const { t } = useTranslation();
  // Toasts sit bottom-left, bottom-centre on screens up to 600 px wide.
  const phone = useMediaQuery(`(max-width:${BREAKPOINTS.sm}px)`);
  // The provider sets notistack's enqueueSnackbar as it is created, before this effect runs.
  useEffect(
    () =>
      attachToaster({
        show: ({ message, options }) => enqueueSnackbar(message, options),
        closeAll: () => closeSnackbar(),
      }),
    [],
  );
  return (
    <SnackbarProvider
      maxSnack={TOAST_MAX}
      preventDuplicate
      autoHideDuration={TOAST_AUTO_HIDE_MS}
      anchorOrigin={{ vertical: 'bottom', horizontal: phone ? 'center' : 'left' }}
      action={(key) => (
        <IconButton
          size="small"
          color="inherit"
          aria-label={t('common.close')}
          onClick={() => closeSnackbar(key)}
        >
          <Close fontSize="small" />
        </IconButton>
      )}
    />
  );
}

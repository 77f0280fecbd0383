import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import { type ReactNode, useCallback, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

/** Asks before something that cannot be undone (deletes). Texts arrive translated. */
export function ConfirmDialog({
  open,
  title,
  text,
  confirmLabel,
  busy,
  focusConfirm,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title?: string;
  text: string;
  /** Defaults to the common "Confirm". */
  confirmLabel?: string;
  busy?: boolean;
  focusConfirm?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Dialog open={open} onClose={onClose} maxWidth="xs" fullWidth>
      {title ? <DialogTitle>{title}</DialogTitle> : null}
      <DialogContent>
        <DialogContentText>{text}</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button
          color="error"
          variant="contained"
          disabled={busy}
          onClick={onConfirm}
          autoFocus={focusConfirm}
          data-testid="confirm-ok"
        >
          {confirmLabel ?? t('common.confirm')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/**
 * The same question as a promise: `ask(text)` resolves true when confirmed; the returned element
 * must be rendered once by the screen.
 */
export function useConfirm(): [ReactNode, (text: string) => Promise<boolean>] {
  const [text, setText] = useState<string | null>(null);
  const resolver = useRef<((ok: boolean) => void) | null>(null);
  const ask = useCallback((question: string) => {
    setText(question);
    return new Promise<boolean>((resolve) => {
      resolver.current = resolve;
    });
  }, []);
  const answer = (ok: boolean) => {
    resolver.current?.(ok);
    resolver.current = null;
    setText(null);
  };
  const element = (
    <ConfirmDialog
      open={text !== null}
      text={text ?? ''}
      focusConfirm
      onConfirm={() => answer(true)}
      onClose={() => answer(false)}
    />
  );
  return [element, ask];
}

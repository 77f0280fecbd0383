import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import { type ReactNode, useCallback, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * A yes/no question before a destructive action. `ask(text)` resolves true when confirmed; the
 * returned element must be rendered once by the screen.
 */
export function useConfirm(): [ReactNode, (text: string) => Promise<boolean>] {
  const { t } = useTranslation();
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
    <Dialog open={text !== null} onClose={() => answer(false)} maxWidth="xs" fullWidth>
      <DialogContent>
        <DialogContentText>{text}</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={() => answer(false)}>{t('common.cancel')}</Button>
        <Button color="error" variant="contained" onClick={() => answer(true)} autoFocus>
          {t('common.confirm')}
        </Button>
      </DialogActions>
    </Dialog>
  );
  return [element, ask];
}

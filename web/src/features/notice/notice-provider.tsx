import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Typography from '@mui/material/Typography';
import { createContext, type ReactNode, useContext, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { MarkdownContent } from '../../components/markdown-content';
import { readText, StorageKey, writeText } from '../../lib/storage';
import { useNoticeText } from './api';

// The notice: fetched once at start; a text that differs from the last one seen is saved and
// opens the dialog by itself; the bell reopens it at any time.

interface NoticeValue {
  openNotice: () => void;
}

const NoticeContext = createContext<NoticeValue>({ openNotice: () => {} });

export function NoticeProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const { data } = useNoticeText();

  useEffect(() => {
    if (!data || data === readText(StorageKey.notice)) return;
    writeText(StorageKey.notice, data);
    setOpen(true);
  }, [data]);

  const text = data || readText(StorageKey.notice) || '';
  const value = useMemo(() => ({ openNotice: () => setOpen(true) }), []);

  return (
    <NoticeContext.Provider value={value}>
      {children}
      <Dialog open={open} onClose={() => setOpen(false)} fullWidth maxWidth="md" data-testid="notice-dialog">
        <DialogTitle>{t('notice.title')}</DialogTitle>
        <DialogContent dividers>
          {text ? (
            <MarkdownContent text={text} />
          ) : (
            <Typography color="text.secondary">{t('notice.empty')}</Typography>
          )}
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)}>{t('common.close')}</Button>
        </DialogActions>
      </Dialog>
    </NoticeContext.Provider>
  );
}

export function useNotice(): NoticeValue {
  return useContext(NoticeContext);
}

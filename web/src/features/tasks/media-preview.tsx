import OpenInNew from '@mui/icons-material/OpenInNew';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import ButtonBase from '@mui/material/ButtonBase';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { hasMedia, type TaskMedia } from './task-media';

/** A thumbnail that opens the image large in a dialog, with a link to the original. */
export function ImageThumb({ src, alt, size = 64 }: { src: string; alt: string; size?: number }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <>
      <ButtonBase
        onClick={() => setOpen(true)}
        aria-label={t('user.task.openImage')}
        data-testid="task-image-thumb"
        sx={{ borderRadius: 1, overflow: 'hidden', flexShrink: 0 }}
      >
        <Box
          component="img"
          src={src}
          alt={alt}
          loading="lazy"
          sx={{ width: size, height: size, objectFit: 'cover', display: 'block', bgcolor: 'action.hover' }}
        />
      </ButtonBase>
      <Dialog open={open} onClose={() => setOpen(false)} maxWidth="lg" data-testid="task-image-dialog">
        <DialogContent sx={{ p: 1, display: 'flex', justifyContent: 'center' }}>
          <Box
            component="img"
            src={src}
            alt={alt}
            sx={{ maxWidth: '100%', maxHeight: '80vh', objectFit: 'contain', display: 'block' }}
          />
        </DialogContent>
        <DialogActions>
          <Button href={src} target="_blank" rel="noopener noreferrer" startIcon={<OpenInNew />}>
            {t('user.task.openOriginal')}
          </Button>
          <Button onClick={() => setOpen(false)}>{t('user.common.close')}</Button>
        </DialogActions>
      </Dialog>
    </>
  );
}

function LyricsButton({ title, text }: { title: string; text: string }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button size="small" onClick={() => setOpen(true)} data-testid="task-lyrics">
        {t('user.task.viewLyrics')}
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} maxWidth="sm" fullWidth>
        <DialogTitle>{title || t('user.task.lyrics')}</DialogTitle>
        <DialogContent>
          <Typography
            component="pre"
            variant="body2"
            sx={{ whiteSpace: 'pre-wrap', fontFamily: 'inherit', m: 0 }}
          >
            {text}
          </Typography>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)}>{t('user.common.close')}</Button>
        </DialogActions>
      </Dialog>
    </>
  );
}

/** Clips and images shown in a row; the rest are counted. */
const SHOWN = 2;
const IMAGES = 4;

/** A finished task's results in a table cell: music with its cover, videos, images, lyrics. */
export function TaskMediaPreview({ media }: { media: TaskMedia }) {
  const { t } = useTranslation();
  if (!hasMedia(media)) return <>—</>;
  const total = media.audios.length + media.videos.length + media.images.length;
  const shown =
    Math.min(media.audios.length, SHOWN) +
    Math.min(media.videos.length, SHOWN) +
    Math.min(media.images.length, IMAGES);
  return (
    <Stack spacing={1} sx={{ py: 0.5, minWidth: 240, alignItems: 'flex-start' }} data-testid="task-media">
      {media.audios.slice(0, SHOWN).map((clip) => (
        <Stack
          key={clip.url}
          direction="row"
          spacing={1}
          sx={{ alignItems: 'center' }}
          data-testid="task-audio"
        >
          {clip.cover && <ImageThumb src={clip.cover} alt={clip.title ?? ''} size={48} />}
          <Stack spacing={0.25} sx={{ minWidth: 0 }}>
            {clip.title && (
              <Typography variant="body2" noWrap title={clip.title} sx={{ maxWidth: 200, fontWeight: 500 }}>
                {clip.title}
              </Typography>
            )}
            {/* biome-ignore lint/a11y/useMediaCaption: generated music has no caption track */}
            <audio controls preload="none" src={clip.url} style={{ height: 32, width: 200 }} />
          </Stack>
        </Stack>
      ))}
      {media.videos.slice(0, SHOWN).map((clip) => (
        // biome-ignore lint/a11y/useMediaCaption: generated video has no caption track
        <video
          key={clip.url}
          controls
          preload="metadata"
          src={clip.url}
          poster={clip.cover}
          data-testid="task-video"
          style={{ width: 200, maxHeight: 130, borderRadius: 4, background: '#000' }}
        />
      ))}
      {media.images.length > 0 && (
        <Stack direction="row" spacing={0.5}>
          {media.images.slice(0, IMAGES).map((src) => (
            <ImageThumb key={src} src={src} alt="" size={48} />
          ))}
        </Stack>
      )}
      {media.lyrics && <LyricsButton title={media.lyrics.title} text={media.lyrics.text} />}
      {total > shown && (
        <Typography variant="caption" color="text.secondary">
          {t('user.task.moreResults', { count: total - shown })}
        </Typography>
      )}
    </Stack>
  );
}

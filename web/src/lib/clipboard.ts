import { i18n } from '../i18n';
import { toast } from './toast';

/** Copies and says so; on failure the text stays on screen to be copied by hand. */
export async function copyText(text: string, name = ''): Promise<boolean> {
  try {
    await writeClipboard(text);
    toast.success(i18n.t('copy.success', { name }));
    return true;
  } catch {
    toast.copy(i18n.t('copy.failed', { name, text }));
    return false;
  }
}

// The async clipboard API exists only in secure contexts; self-hosted consoles are often plain http.
async function writeClipboard(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  try {
    if (!document.execCommand('copy')) throw new Error('copy refused');
  } finally {
    area.remove();
  }
}

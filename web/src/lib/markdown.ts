import DOMPurify from 'dompurify';
import { marked } from 'marked';

/** Markdown (or HTML) written by an administrator, as HTML safe to insert: scripts and handlers removed. */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false, gfm: true, breaks: true });
  return sanitizeHtml(html);
}

export function sanitizeHtml(html: string): string {
  return DOMPurify.sanitize(html, { ADD_ATTR: ['target'] });
}

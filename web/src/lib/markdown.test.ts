import { describe, expect, it } from 'vitest';
import { isFrameUrl } from './frame-url';
import { renderMarkdown, sanitizeHtml } from './markdown';

describe('renderMarkdown', () => {
  it('renders markdown', () => {
    expect(renderMarkdown('# Hello\n\n**bold**')).toContain('<h1>Hello</h1>');
    expect(renderMarkdown('**bold**')).toContain('<strong>bold</strong>');
  });

  it('removes scripts, event handlers and javascript: links', () => {
    const html = renderMarkdown(
      'hi <script>alert(1)</script><img src="x" onerror="alert(2)"> [x](javascript:alert(3)) <a href="https://a.example" target="_blank">a</a>',
    );
    expect(html).not.toContain('<script');
    expect(html).not.toContain('onerror');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('target="_blank"');
  });

  it('sanitises raw HTML such as a custom footer', () => {
    expect(sanitizeHtml('<p onclick="x()">© Corp</p>')).toBe('<p>© Corp</p>');
  });
});

describe('isFrameUrl', () => {
  it('is true only for a bare https address', () => {
    expect(isFrameUrl('https://example.com/about')).toBe(true);
    expect(isFrameUrl('  https://example.com  ')).toBe(true);
    expect(isFrameUrl('http://example.com')).toBe(false);
    expect(isFrameUrl('See https://example.com')).toBe(false);
    expect(isFrameUrl('')).toBe(false);
  });
});

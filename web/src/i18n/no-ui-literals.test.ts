import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// No UI literal outside the locale files, so every language covers every screen. Scans every
// component for text a user would read.
const SRC = join(import.meta.dirname, '..');
const TEXT_PROPS = new Set([
  'label',
  'title',
  'placeholder',
  'aria-label',
  'alt',
  'helperText',
  'caption',
  'tooltip',
]);
const WORDS = /\p{L}{2,}/u;

function componentFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'i18n' ? [] : componentFiles(full);
    return entry.name.endsWith('.tsx') && !entry.name.endsWith('.test.tsx') ? [full] : [];
  });
}

function literalsIn(file: string, text = readFileSync(file, 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const where = (node: ts.Node) =>
    `${relative(SRC, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node): void => {
    if (ts.isJsxText(node) && WORDS.test(node.text)) found.push(`${where(node)} text "${node.text.trim()}"`);
    if (ts.isJsxAttribute(node) && TEXT_PROPS.has(node.name.getText(source))) {
      const init = node.initializer;
      const text = init && ts.isStringLiteral(init) ? init.text : undefined;
      if (text && WORDS.test(text)) found.push(`${where(node)} ${node.name.getText(source)}="${text}"`);
    }
    if (ts.isJsxExpression(node) && node.expression && ts.isStringLiteralLike(node.expression)) {
      const parent = node.parent;
      if ((ts.isJsxElement(parent) || ts.isJsxFragment(parent)) && WORDS.test(node.expression.text)) {
        found.push(`${where(node)} text {'${node.expression.text}'}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('UI text', () => {
  it('comes only from the locale files', () => {
    const files = componentFiles(SRC);
    expect(files.length).toBeGreaterThan(10);
    expect(files.flatMap((file) => literalsIn(file))).toEqual([]);
  });

  it('catches text, text props and string children written inline', () => {
    const probe = join(SRC, 'probe.tsx');
    const text = `export const P = () => (
  <p title="Hello there" className="plain">
    Welcome {'back home'} {count}
  </p>
);`;
    expect(literalsIn(probe, text)).toEqual([
      'probe.tsx:2 title="Hello there"',
      'probe.tsx:3 text "Welcome"',
      "probe.tsx:3 text {'back home'}",
    ]);
  });
});

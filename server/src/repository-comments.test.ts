import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Comments and docs must state a rule themselves: a citation of a planning document kept outside
// the repository ("see section 4 of the spec") leaves every reader of the code with nothing to
// follow. Compatibility facts belong in docs/compatibility.md, which is in the repository.

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Tracked files a person reads as text: sources, docs and configuration. */
const TEXT_FILE = /\.(ts|tsx|js|mjs|cjs|md|json|ya?ml|css|html|sh)$/;
const SKIPPED = new Set(['package-lock.json']);

const SECTION = '\u00a7';
/** A section sign followed by a number, unless it points into a public RFC. */
const SECTION_CITATION = new RegExp(`${SECTION}\\s*\\d`, 'g');
const RFC_BEFORE = /RFC\s*\d+[\s,]*$/i;
/** The planning documents by file name. */
const DOCUMENT_NAME = /\b(?:one-hub|console-spec|design)\.md\b/i;

function trackedTextFiles(): string[] {
  const listing = execFileSync('git', ['ls-files', '-z'], { cwd: REPO_ROOT, encoding: 'utf8' });
  return listing
    .split('\0')
    .filter((path) => TEXT_FILE.test(path) && !SKIPPED.has(path.split('/').pop() ?? ''));
}

/** `file:line: text` for every line of `text` that cites a document outside the repository. */
export function findCitations(file: string, text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, index) => {
    const sectionCited = [...line.matchAll(SECTION_CITATION)].some(
      (match) => !RFC_BEFORE.test(line.slice(0, match.index)),
    );
    if (sectionCited || DOCUMENT_NAME.test(line)) {
      found.push(`${file}:${index + 1}: ${line.trim()}`);
    }
  });
  return found;
}

describe('repository comments and docs', () => {
  it('finds each kind of citation and leaves RFC sections alone', () => {
    const sample = [
      `// the rule (spec ${SECTION}5 "Channel")`,
      `// fixed here (${SECTION}16 item 12)`,
      '// see ../shared/design' + '.md',
      `// chunked framing (RFC 9112 ${SECTION}7.1)`,
      '// a plain comment',
    ].join('\n');
    expect(findCitations('x.ts', sample).map((hit) => hit.split(':')[1])).toEqual(['1', '2', '3']);
  });

  it('cite no document kept outside the repository', () => {
    const files = trackedTextFiles();
    expect(files.length).toBeGreaterThan(100);
    const citations = files.flatMap((file) =>
      findCitations(file, readFileSync(join(REPO_ROOT, file), 'utf8')),
    );
    expect(
      citations,
      `state the rule itself, or put it in docs/compatibility.md:\n${citations.join('\n')}`,
    ).toEqual([]);
  });
});

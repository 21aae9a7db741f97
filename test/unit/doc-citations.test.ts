// The documentation cites only files the repository has: every file named in README.md and
// docs/*.md (in inline code or a relative link) exists, whether written from the repository's
// root, from the document's folder, from src/ (as docs/architecture.md writes them), or, a bare
// file name, anywhere in the repository.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);
const SKIPPED = new Set(['node_modules', '.git', 'data']);
/** What a cited file ends with; anything else in inline code (a URL path, `true/false`) is not a file. */
const FILE_EXTENSION = /\.(md|ts|js|mjs|cjs|json|ya?ml|sh|css|csv|svg|html)$/;
const PATH_LIKE = /^[\w.-]+(?:\/[\w.-]+)*\/?$/;

function repositoryFiles(dir = ROOT): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? [full, ...repositoryFiles(full)] : [full];
  });
}

const documents = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const topFolders = new Set(
  fs
    .readdirSync(ROOT, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !SKIPPED.has(e.name))
    .map((e) => e.name),
);

/** The files a document cites: code blocks left out, where commands and sample output live. */
function citedFiles(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  const cited = new Set<string>();
  for (const [, code] of prose.matchAll(/`([^`\n]+)`/g)) {
    if (!PATH_LIKE.test(code!) || code!.startsWith('.')) continue;
    const folder = code!.endsWith('/') && topFolders.has(code!.split('/')[0]!);
    if (FILE_EXTENSION.test(code!) || folder) cited.add(code!);
  }
  for (const [, link] of prose.matchAll(/\]\(([^)\s#]+)/g)) if (!/^[a-z][a-z+.-]*:/i.test(link!) && !link!.startsWith('/')) cited.add(link!);
  return [...cited];
}

describe('the documentation', () => {
  const files = repositoryFiles();
  const names = new Set(files.map((f) => path.basename(f)));
  const exists = (document: string, cited: string) => {
    const bases = [ROOT, path.dirname(path.join(ROOT, document)), path.join(ROOT, 'src')];
    if (bases.some((base) => fs.existsSync(path.join(base, cited)))) return true;
    return !cited.includes('/') && names.has(cited);
  };

  it.each(documents)('%s cites only files the repository has', (document) => {
    const missing = citedFiles(fs.readFileSync(path.join(ROOT, document), 'utf8')).filter((cited) => !exists(document, cited));
    expect(missing).toEqual([]);
  });

  it('finds citations where documents write them', () => {
    const sample =
      'See `docs/v2.md`, `provider-facts.md` §3 and [the guide](docs/oauth.md); not `true/false`, `/v3/payments` nor\n```sh\nquipu reconcile statement.csv\n```';
    expect(citedFiles(sample)).toEqual(['docs/v2.md', 'provider-facts.md', 'docs/oauth.md']);
    expect(exists('README.md', 'provider-facts.md')).toBe(false);
    expect(exists('docs/oauth.md', 'v2.md')).toBe(true);
  });
});

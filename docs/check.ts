/**
 * Keeps the documentation honest: every relative link reaches a file (and heading) in the repository, every
 * repository path shown in code exists, and every command shown exists — `npm run <script>` in package.json,
 * `npm run cairn -- <command> --<flag>` in the CLI, `node <file>` on disk.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

export interface DocProblem {
  /** Relative to the repository root. */
  file: string;
  line: number;
  message: string;
}

export interface CommandFacts {
  /** The scripts of the root package.json. */
  scripts: ReadonlySet<string>;
  /** The flags of the CLI command named by these words, or undefined when the CLI has no such command. */
  cliFlags(words: string[]): Promise<ReadonlySet<string> | undefined>;
}

/** What a page offers to check: its links, code spans, fenced lines and headings, each with its line. */
interface Page {
  links: Located[];
  spans: Located[];
  fenced: Located[];
  anchors: Set<string>;
}

interface Located {
  text: string;
  line: number;
}

/** The CLI's own flags, accepted on every command. */
const GLOBAL_CLI_FLAGS = ['verbose', 'help'];

/** Top-level entries that are build output or local data, never something a document should point into. */
const NOT_SOURCE = new Set(['node_modules', 'data', 'dist']);

export async function checkDocs(root: string, files: string[], facts: CommandFacts): Promise<DocProblem[]> {
  const pages = new Map(files.map((file) => [file, readPage(path.join(root, file))]));
  const topLevel = readdirSync(root).filter((name) => !name.startsWith('.') && !NOT_SOURCE.has(name));
  const problems: DocProblem[] = [];
  for (const [file, page] of pages) {
    const report = (line: number, message: string) => problems.push({ file, line, message });
    for (const link of page.links) {
      const problem = linkProblem(root, file, link.text, pages);
      if (problem !== undefined) report(link.line, problem);
    }
    for (const { text, line } of [...page.spans, ...page.fenced].sort((a, b) => a.line - b.line)) {
      for (const shown of repositoryPaths(text, topLevel)) {
        if (!pathExists(root, shown)) report(line, `path ${shown} does not exist`);
      }
      for (const problem of await commandProblems(root, text, facts)) report(line, problem);
    }
  }
  return problems;
}

function readPage(file: string): Page {
  const page: Page = { links: [], spans: [], fenced: [], anchors: new Set() };
  const seen = new Map<string, number>();
  let fence = false;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, index) => {
      const line = index + 1;
      if (text.startsWith('```')) {
        fence = !fence;
        return;
      }
      if (fence) {
        page.fenced.push({ text: text.replace(/\s#\s.*$/, ''), line });
        return;
      }
      const heading = /^#{1,6}\s+(.*)$/.exec(text);
      if (heading) {
        // GitHub's anchors: repeated headings get -1, -2, …
        const slug = slugOf(heading[1]);
        const count = seen.get(slug) ?? 0;
        seen.set(slug, count + 1);
        page.anchors.add(count === 0 ? slug : `${slug}-${count}`);
      }
      for (const match of text.matchAll(/`([^`]+)`/g)) page.spans.push({ text: match[1], line });
      const prose = text.replace(/`[^`]*`/g, '');
      for (const match of prose.matchAll(/\]\(([^)\s]+)\)/g)) page.links.push({ text: match[1], line });
    });
  return page;
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces as hyphens. */
export function slugOf(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function linkProblem(root: string, file: string, target: string, pages: Map<string, Page>): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [pathPart, anchor] = target.split('#', 2);
  const resolved = pathPart === '' ? file : path.relative(root, path.resolve(root, path.dirname(file), pathPart));
  if (resolved.startsWith('..') || path.isAbsolute(resolved)) return `link ${target} points outside the repository`;
  if (!existsSync(path.join(root, resolved))) return `link ${target}: ${resolved} does not exist`;
  if (anchor === undefined || !resolved.endsWith('.md')) return undefined;
  const anchors = (pages.get(resolved) ?? readPage(path.join(root, resolved))).anchors;
  return anchors.has(anchor) ? undefined : `link ${target}: ${resolved} has no heading #${anchor}`;
}

/** Words of `text` that name a path inside one of the repository's top-level directories. */
function repositoryPaths(text: string, topLevel: string[]): string[] {
  return text
    .split(/[\s=,;()]+/)
    .map((word) => word.replace(/^['"]|['".:]+$/g, ''))
    .filter((word) => topLevel.some((entry) => word.startsWith(`${entry}/`)))
    // Templates (`services/<service>/…`, `{owner}`), globs and elisions stand for many paths.
    .filter((word) => !/[<>{}*…$]/.test(word));
}

/**
 * A path shown exists, or is build output whose source exists (`bench/dist/seed-issues.js` from
 * `bench/seed-issues.ts`), or is something git ignores (results a run writes).
 */
function pathExists(root: string, shown: string): boolean {
  if (existsSync(path.join(root, shown))) return true;
  if (shown.includes('/dist/') && shown.endsWith('.js')) {
    const source = shown.replace(/\.js$/, '.ts');
    if ([source.replace('/dist/', '/src/'), source.replace('/dist/', '/')].some((candidate) => existsSync(path.join(root, candidate)))) {
      return true;
    }
  }
  try {
    execFileSync('git', ['check-ignore', '--quiet', shown], { cwd: root, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function commandProblems(root: string, text: string, facts: CommandFacts): Promise<string[]> {
  const problems: string[] = [];
  for (const match of text.matchAll(/\bnpm run (?:--silent )?([\w:-]+)(?: -- (.*))?/g)) {
    const [, script, rest] = match;
    if (!facts.scripts.has(script)) {
      problems.push(`npm run ${script}: no such script in package.json`);
      continue;
    }
    if (script !== 'cairn' || rest === undefined) continue;
    const args = shellWords(rest);
    const firstFlag = args.findIndex((arg) => arg.startsWith('-'));
    const words = firstFlag < 0 ? args : args.slice(0, firstFlag);
    // A template (`cairn -- <command>`) stands for every command.
    if (args.some((arg) => arg.includes('<'))) continue;
    const flags = await facts.cliFlags(words);
    if (flags === undefined) {
      problems.push(`npm run cairn -- ${words.join(' ')}: no such CLI command`);
      continue;
    }
    for (const arg of args.filter((word) => word.startsWith('--'))) {
      const flag = arg.slice(2).split('=')[0];
      if (!flags.has(flag) && !GLOBAL_CLI_FLAGS.includes(flag)) problems.push(`npm run cairn -- ${words.join(' ')}: no flag --${flag}`);
    }
  }
  for (const match of text.matchAll(/\bnode ([\w./-]+\.js)\b/g)) {
    if (!pathExists(root, match[1])) problems.push(`node ${match[1]}: no such file`);
  }
  return problems;
}

/** The words of a shown command line: quotes grouped, optional brackets dropped, stopping at a comment or pipe. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/'[^']*'|"[^"]*"|[^\s'"]+/g)) {
    const word = match[0];
    if (word === '#' || word === '|' || word === '&&') break;
    words.push(word.replace(/^\[+|\]+$/g, ''));
  }
  return words.filter((word) => word !== '');
}

/** The markdown files the check covers: README.md and every page of docs/. */
export function documentationFiles(root: string): string[] {
  return ['README.md', ...readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
}

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../services/cli/src';
import { checkDocs, documentationFiles, slugOf, type CommandFacts } from './check';

const ROOT = path.resolve(__dirname, '..');

/** The CLI's flags for a command, read from its own `--help`, the way a reader would find them. */
async function cliFlags(words: string[]): Promise<ReadonlySet<string> | undefined> {
  if (words.length === 0) return undefined;
  let out = '';
  const code = await runCli([...words, '--help'], { env: {}, cwd: ROOT, stdout: (text) => (out += text), stderr: () => undefined });
  const usage = out.split('\n')[0];
  if (code !== 0 || !usage.startsWith(`Usage: cairn ${words.join(' ')} `)) return undefined;
  return new Set([...usage.matchAll(/--([\w-]+)/g)].map((match) => match[1]));
}

const repoFacts: CommandFacts = {
  scripts: new Set(Object.keys((JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts)),
  cliFlags,
};

describe('the documentation', () => {
  it('links only to files and headings that exist, and shows only paths and commands that exist', async () => {
    const files = documentationFiles(ROOT);
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/configuration.md', 'docs/events.md']));
    expect(await checkDocs(ROOT, files, repoFacts)).toEqual([]);
  });
});

describe('checkDocs', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'cairn-docs-'));
    mkdirSync(path.join(dir, 'docs'));
    mkdirSync(path.join(dir, 'scripts'));
    writeFileSync(path.join(dir, 'scripts', 'probe.js'), '');
    writeFileSync(path.join(dir, 'docs', 'api.md'), '# API\n\n## Departures from Gitea\n\n## Notes\n\n## Notes\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const facts: CommandFacts = {
    scripts: new Set(['cairn', 'build']),
    cliFlags: async (words) => (words.join(' ') === 'admin user create' ? new Set(['username', 'admin']) : undefined),
  };
  const check = async (readme: string) => {
    writeFileSync(path.join(dir, 'README.md'), readme);
    return (await checkDocs(dir, documentationFiles(dir), facts)).map((problem) => `${problem.file}:${problem.line} ${problem.message}`);
  };

  it('passes links, anchors, paths and commands that exist', async () => {
    const readme = [
      'See [the API](docs/api.md), [departures](docs/api.md#departures-from-gitea), [the second](docs/api.md#notes-1), [web](https://gitea.com).',
      '`npm run build`, `npm run cairn -- admin user create --username U [--admin] --verbose`, `scripts/probe.js`, `node scripts/probe.js`',
      '```sh',
      'npm run cairn -- admin user create --username alice --admin   # the first administrator',
      '```',
    ].join('\n');
    expect(await check(readme)).toEqual([]);
  });

  it('fails a broken link, a missing heading and a link out of the repository', async () => {
    expect(await check('[a](docs/gone.md) [b](docs/api.md#no-such-heading)\n[c](../shared/DESIGN.md)\n')).toEqual([
      'README.md:1 link docs/gone.md: docs/gone.md does not exist',
      'README.md:1 link docs/api.md#no-such-heading: docs/api.md has no heading #no-such-heading',
      'README.md:2 link ../shared/DESIGN.md points outside the repository',
    ]);
  });

  it('fails a missing script, CLI command, CLI flag, file or path', async () => {
    const readme = [
      '`npm run nope`',
      '`npm run cairn -- dump-repo --repo x`',
      '```sh',
      'npm run cairn -- admin user create --username alice --colour red',
      'node scripts/gone.js',
      '```',
      'Decided in `scripts/decide.ts`.',
    ].join('\n');
    expect(await check(readme)).toEqual([
      'README.md:1 npm run nope: no such script in package.json',
      'README.md:2 npm run cairn -- dump-repo: no such CLI command',
      'README.md:4 npm run cairn -- admin user create: no flag --colour',
      'README.md:5 path scripts/gone.js does not exist',
      'README.md:5 node scripts/gone.js: no such file',
      'README.md:7 path scripts/decide.ts does not exist',
    ]);
  });

  it("makes GitHub's anchors", () => {
    expect(slugOf("Statuses Gitea's description leaves out")).toBe('statuses-giteas-description-leaves-out');
    expect(slugOf('Service identity (gRPC between services)')).toBe('service-identity-grpc-between-services');
    expect(slugOf('Where this departs from `DESIGN.md`')).toBe('where-this-departs-from-designmd');
  });
});

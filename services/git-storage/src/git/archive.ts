/**
 * Archives of one commit, streamed as git writes them: `git archive` for zip and tar.gz, `git bundle` for
 * bundles. A bundle needs a ref to carry, so (as Gitea does) it is made in a scratch repository that borrows the
 * repository's objects through `alternates` and holds one branch, `bundle`, at the commit: the repository itself
 * never gets a temporary ref.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CairnError } from '@cairn/rpc';
import { runGit } from './command';
import { streamGit } from './stream';

export const ARCHIVE_FORMATS = ['zip', 'tar.gz', 'bundle'] as const;
export type ArchiveFormat = (typeof ARCHIVE_FORMATS)[number];

export function parseArchiveFormat(format: string): ArchiveFormat {
  const known = ARCHIVE_FORMATS.find((candidate) => candidate === format);
  if (known === undefined) throw CairnError.invalid(`unknown archive format "${format}"`, { reason: 'invalid_archive_format' });
  return known;
}

/** Streams the archive of `commitSha`; `prefix` (normalized, may be empty) is the directory entries go under. */
export async function* streamArchive(
  gitDir: string,
  commitSha: string,
  format: ArchiveFormat,
  prefix: string,
  signal: AbortSignal,
): AsyncGenerator<Buffer> {
  if (format !== 'bundle') {
    const prefixArg = prefix === '' ? [] : [`--prefix=${prefix}/`];
    yield* streamGit(['archive', `--format=${format}`, ...prefixArg, '--end-of-options', commitSha], { gitDir, signal });
    return;
  }
  const scratch = await mkdtemp(path.join(tmpdir(), 'cairn-bundle-'));
  try {
    await runGit(['init', '--quiet', '--bare', scratch]);
    await mkdir(path.join(scratch, 'objects', 'info'), { recursive: true });
    await writeFile(path.join(scratch, 'objects', 'info', 'alternates'), `${path.join(gitDir, 'objects')}\n`);
    await runGit(['update-ref', 'refs/heads/bundle', commitSha], { gitDir: scratch });
    await runGit(['symbolic-ref', 'HEAD', 'refs/heads/bundle'], { gitDir: scratch });
    yield* streamGit(['bundle', 'create', '--quiet', '-', 'refs/heads/bundle', 'HEAD'], { gitDir: scratch, signal });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

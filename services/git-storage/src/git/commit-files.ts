/**
 * Writing a commit without a working tree (what Gitea does in a temporary clone, done in place): a throw-away
 * index file loaded from the parent's tree, blobs hashed straight into the object store, the index edited,
 * written as a tree and committed with `commit-tree`. No ref moves here: the caller swaps the branch after.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { IndexEdit } from '../domain/file-changes';
import { runGit } from './command';
import { ZERO_SHA } from './refs';

export interface CommitFilesInput {
  /** The parent commit; undefined for a first commit. */
  parent: string | undefined;
  edits: readonly IndexEdit[];
  /** The complete message, as stored. */
  message: string;
  /** GIT_AUTHOR_* and GIT_COMMITTER_* (identity.ts). */
  identity: NodeJS.ProcessEnv;
}

async function hashBlob(gitDir: string, content: Buffer): Promise<string> {
  const { stdout } = await runGit(['hash-object', '-w', '--stdin'], { gitDir, stdin: content });
  return stdout.toString('utf8').trim();
}

/** Creates the commit object and answers its sha. */
export async function commitFiles(gitDir: string, input: CommitFilesInput): Promise<string> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'cairn-index-'));
  try {
    const env = { GIT_INDEX_FILE: path.join(scratch, 'index') };
    await runGit(input.parent === undefined ? ['read-tree', '--empty'] : ['read-tree', '--end-of-options', input.parent], { gitDir, env });
    const lines: string[] = [];
    for (const edit of input.edits) {
      // --index-info lines: "<mode> SP <sha> TAB <path>"; mode 0 with the zero id removes the path.
      if (edit.kind === 'remove') lines.push(`0 ${ZERO_SHA}\t${edit.path}\0`);
      else lines.push(`${edit.mode} ${await hashBlob(gitDir, edit.content)}\t${edit.path}\0`);
    }
    await runGit(['update-index', '-z', '--index-info'], { gitDir, env, stdin: lines.join('') });
    const tree = (await runGit(['write-tree'], { gitDir, env })).stdout.toString('utf8').trim();
    const parents = input.parent === undefined ? [] : ['-p', input.parent];
    const { stdout } = await runGit(['commit-tree', ...parents, tree], { gitDir, env: input.identity, stdin: input.message });
    return stdout.toString('utf8').trim();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

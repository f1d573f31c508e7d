/**
 * A restore task's source (RestoreRepository): the dump archive fetched from the object store into a scratch
 * directory and extracted (checked again: it is user input), its git data sent to git-storage as a bundle
 * (RemoteService.FetchBundle), and its items read by @cairn/migration's DumpDownloader. A resumed task fetches and
 * extracts the archive again; the archive object is deleted once the task has ended.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DumpDownloader, extractTar } from '@cairn/migration';
import type { FetchBundleRequest } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError } from '@cairn/rpc';
import { RESTORE_ARCHIVE_LIMITS } from '../domain/restore';
import type { MigrationsContext } from '../rpc/context';
import type { TaskRow } from '../store/tasks';

export interface RestoreSource {
  dir: string;
  downloader: DumpDownloader;
  /** The dump's git HEAD branch ('' when none). */
  headBranch(): Promise<string>;
  /** `git bundle create - --all` of the dump's git/ as FetchBundle requests; undefined when it has no refs. */
  bundle(first: Omit<FetchBundleRequest, 'data'>): Promise<AsyncIterable<FetchBundleRequest> | undefined>;
  close(): Promise<void>;
}

function git(gitDir: string, args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['--git-dir', gitDir, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, stdout: Buffer.concat(out).toString('utf8') }));
  });
}

export async function openRestoreSource(context: MigrationsContext, task: TaskRow): Promise<RestoreSource> {
  const objects = context.objects;
  if (objects === undefined) throw CairnError.unavailable('the object store is not configured');
  const dir = await mkdtemp(path.join(tmpdir(), 'cairn-restore-'));
  try {
    const archive = await objects.open(task.archive_key);
    await extractTar(archive.body, dir, RESTORE_ARCHIVE_LIMITS);
    const downloader = await DumpDownloader.open(dir);
    const gitDir = path.join(dir, 'git');
    return {
      dir,
      downloader,
      async headBranch() {
        const head = await git(gitDir, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
        return head.code === 0 ? head.stdout.trim() : '';
      },
      async bundle(first) {
        const refs = await git(gitDir, ['for-each-ref', '--count=1', '--format=%(refname)']);
        if (refs.code !== 0 || refs.stdout.trim() === '') return undefined;
        return (async function* () {
          yield { ...first, data: Buffer.alloc(0) };
          const child = spawn('git', ['--git-dir', gitDir, 'bundle', 'create', '--quiet', '-', '--all'], { stdio: ['ignore', 'pipe', 'pipe'] });
          const errors: Buffer[] = [];
          child.stderr.on('data', (chunk: Buffer) => errors.push(chunk));
          const exited = new Promise<number>((resolve) => child.once('close', (code) => resolve(code ?? 1)));
          for await (const chunk of child.stdout) yield { repository: undefined, push: undefined, origin: '', data: chunk as Buffer };
          const code = await exited;
          if (code !== 0) throw new Error(`git bundle create failed: ${Buffer.concat(errors).toString('utf8').trim()}`);
        })();
      },
      close: () => rm(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * A git command's stdout as an async iterable of chunks, for output too large to collect (blobs, archives,
 * bundles). Reading is at the consumer's pace: a paused consumer leaves the pipe full and git waits.
 */
import { CairnError } from '@cairn/rpc';
import { type GitOptions, gitCommand } from './command';

/**
 * Yields git's stdout. A non-zero exit rejects with INTERNAL (stderr kept as the cause); a consumer that stops
 * early, or an aborted `signal`, kills the process, and so does a consumer that takes nothing for `[git.timeout]
 * IDLE` (then, or past the wall-clock limit, it rejects with DEADLINE_EXCEEDED).
 */
export async function* streamGit(args: readonly string[], options: GitOptions = {}): AsyncGenerator<Buffer> {
  const git = gitCommand(args, options);
  const { child } = git;
  git.watchIdle();
  child.stdin.end();
  const stderr: Buffer[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.on('error', (error) => resolve({ code: null, signal: null, error }));
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  let finished = false;
  try {
    for await (const chunk of child.stdout) {
      git.touch();
      yield chunk as Buffer;
      git.touch();
    }
    const { code, signal, error } = await exited;
    finished = true;
    const stopped = git.stopped();
    if (stopped !== undefined) throw stopped;
    if (code !== 0) {
      const detail = error?.message ?? `git ${args[0] ?? ''} exited with ${signal ?? code}: ${Buffer.concat(stderr).toString('utf8').trim()}`;
      throw CairnError.internal('git command failed', { cause: new Error(detail) });
    }
  } finally {
    if (!finished) child.kill();
  }
}

/** The first `maxBytes` bytes of git's stdout (the process is stopped once they arrived). */
export async function readGitPrefix(args: readonly string[], maxBytes: number, options: GitOptions = {}): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  if (maxBytes <= 0) return Buffer.alloc(0);
  for await (const chunk of streamGit(args, options)) {
    chunks.push(chunk);
    length += chunk.length;
    if (length >= maxBytes) break;
  }
  return Buffer.concat(chunks).subarray(0, maxBytes);
}

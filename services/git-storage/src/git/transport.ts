/**
 * Running a pack transport command (`upload-pack`, `receive-pack`) with a stream on both ends: the request body is
 * written to git's stdin as it arrives and git's stdout is yielded as it is produced, each at the pace of the
 * other side (stdin writes wait for drain; stdout is read only when the consumer pulls), so no pack is ever held
 * in memory whole.
 */
import type { Writable } from 'node:stream';
import { CairnError } from '@cairn/rpc';
import { type GitOptions, type GitProcess, gitCommand } from './command';

/** How much of git's stderr is kept for the log line of a failure. */
const STDERR_LIMIT = 64 * 1024;

export interface TransportOptions extends GitOptions {
  /** The request body; git's stdin is closed when it ends. */
  input?: AsyncIterable<Uint8Array>;
}

/** Resolves when `stream` can take more, or will never (closed, failed). */
function writable(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      stream.off('error', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
    stream.on('error', done);
  });
}

/** Writes `input` to git's stdin with backpressure, then closes it; answers the input's own failure, if any. */
async function feed(input: AsyncIterable<Uint8Array> | undefined, git: GitProcess): Promise<unknown> {
  const stdin = git.child.stdin;
  try {
    if (input !== undefined) {
      for await (const chunk of input) {
        if (stdin.destroyed) break;
        git.touch();
        if (!stdin.write(chunk)) await writable(stdin);
        git.touch();
      }
    }
    return undefined;
  } catch (error) {
    return error;
  } finally {
    stdin.end();
  }
}

/**
 * Yields git's stdout. Rejects with the input's error when the request stream failed, and with INTERNAL (stderr
 * as the cause) when git exits non-zero. A consumer that stops early, or an aborted `signal`, kills git. So does
 * a peer that neither sends nor takes a byte for `[git.timeout] IDLE` (a stalled client), and the wall-clock
 * limit: then it rejects with DEADLINE_EXCEEDED (reason git_idle_timeout or git_timeout).
 */
export async function* transportGit(args: readonly string[], options: TransportOptions = {}): AsyncGenerator<Buffer> {
  const git = gitCommand(args, options);
  const { child } = git;
  git.watchIdle();
  let stderr = Buffer.alloc(0);
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = Buffer.concat([stderr, chunk]);
    if (stderr.length > STDERR_LIMIT) stderr = stderr.subarray(stderr.length - STDERR_LIMIT);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.on('error', (error) => resolve({ code: null, signal: null, error }));
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  // git may exit before reading all of its input (a refused request): the broken pipe is expected then.
  child.stdin.on('error', () => undefined);
  const fed = feed(options.input, git).then((error) => {
    if (error !== undefined) child.kill();
    return error;
  });
  let finished = false;
  try {
    for await (const chunk of child.stdout) {
      git.touch();
      yield chunk as Buffer;
      git.touch();
    }
    const exit = await exited;
    // git may be done before the input is (it read what it needed): do not wait for the rest to arrive.
    const inputError = await Promise.race([fed, Promise.resolve(undefined)]);
    finished = true;
    const stopped = git.stopped();
    if (stopped !== undefined) throw stopped;
    if (inputError !== undefined) throw inputError;
    if (exit.code !== 0) {
      const detail = exit.error?.message ?? `git ${args.join(' ')} exited with ${exit.signal ?? exit.code}: ${stderr.toString('utf8').trim()}`;
      throw CairnError.internal('git transport failed', { cause: new Error(detail) });
    }
  } finally {
    if (!finished) child.kill();
  }
}

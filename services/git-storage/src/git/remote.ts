/**
 * git talking to a remote (RemoteService): through the command factory, in @cairn/outbound's guarded environment
 * (every connection through a forward proxy the one guard checks, only http and https, no prompts, nothing from the
 * host's environment; the URLs with their credentials in GIT_CONFIG_* variables, not argv).
 */
import { guardedGitEnvironment } from '@cairn/outbound';
import { runGit, type GitResult } from './command';

/**
 * Where a fetch puts the remote's refs before they are applied (`<prefix><call id>/refs/heads/…`); hidden from
 * clients (command.ts BASE_CONFIG transfer.hideRefs).
 */
export const STAGING_PREFIX = 'refs/cairn-fetch/';

/** The name the remote's URL is configured under for the one command. */
export const REMOTE_NAME = 'cairn-remote';

export interface RemoteGitOptions {
  gitDir: string;
  /** The remote's URL (with credentials). */
  url: string;
  /** The outbound proxy's URL (with its token). */
  proxyUrl: string;
  timeoutMs: number;
  /** Kills git when the caller has gone. */
  signal?: AbortSignal;
}

/** Runs `git <args>` against the remote named REMOTE_NAME; answers whatever git exits with (the caller reads it). */
export function runRemoteGit(args: readonly string[], options: RemoteGitOptions): Promise<GitResult> {
  const env = guardedGitEnvironment({ proxyUrl: options.proxyUrl, remote: { name: REMOTE_NAME, url: options.url } });
  return runGit(args, { gitDir: options.gitDir, env, timeoutMs: options.timeoutMs, signal: options.signal, okExitCodes: [0, 1, 128] });
}

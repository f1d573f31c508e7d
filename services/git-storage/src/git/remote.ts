/**
 * git talking to a remote (RemoteService): through the command factory, with every connection through a forward
 * proxy of @cairn/outbound that the one guard checks (git never resolves or connects by itself), only http and
 * https, no credential helper, prompt or askpass, and nothing from the host's environment (gitEnvironment starts
 * empty: no HTTP(S)_PROXY, ALL_PROXY or NO_PROXY to bypass the proxy). The remote's URL — credentials included — and
 * the proxy's URL — its token included — reach git through GIT_CONFIG_* variables, not argv, so `ps` shows neither.
 */
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

const NETWORK_CONFIG: readonly (readonly [string, string])[] = [
  ['protocol.allow', 'never'],
  ['protocol.http.allow', 'always'],
  ['protocol.https.allow', 'always'],
  ['credential.helper', ''],
  // Each redirect is another request through the proxy, so checked again by the guard.
  ['http.followRedirects', 'true'],
  // The proxy's credentials are sent with the first request (no 407 round trip).
  ['http.proxyAuthMethod', 'basic'],
];

/** Runs `git <args>` against the remote named REMOTE_NAME; answers whatever git exits with (the caller reads it). */
export function runRemoteGit(args: readonly string[], options: RemoteGitOptions): Promise<GitResult> {
  const config = [...NETWORK_CONFIG, ['http.proxy', options.proxyUrl] as const, [`remote.${REMOTE_NAME}.url`, options.url] as const];
  const env: NodeJS.ProcessEnv = {
    GIT_PROTOCOL_FROM_USER: '0',
    // Something that fails, so git never gets credentials it was not given.
    GIT_ASKPASS: '/bin/false',
    GIT_CONFIG_COUNT: String(config.length),
  };
  config.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return runGit(args, { gitDir: options.gitDir, env, timeoutMs: options.timeoutMs, signal: options.signal, okExitCodes: [0, 1, 128] });
}

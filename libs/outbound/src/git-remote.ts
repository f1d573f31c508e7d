/**
 * The environment of a git process that talks to a remote a user chose (migrations, mirrors, dump-repo): every
 * connection through an outbound proxy (startOutboundProxy) that the one guard checks, so git never resolves or
 * connects by itself; only http and https; no credential helper, prompt or askpass; nothing from the host's
 * environment or git configuration (no HTTP(S)_PROXY, ALL_PROXY or NO_PROXY to bypass the proxy). The remote's URL —
 * credentials included — and the proxy's URL — its token included — reach git through GIT_CONFIG_* variables, not
 * argv, so `ps` shows neither.
 */

export interface GuardedGitOptions {
  /** The outbound proxy's URL (with its token). */
  proxyUrl: string;
  /** The remote's name for the command (`git fetch <name>`) and its URL, credentials included. */
  remote: { name: string; url: string };
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

/** The whole environment for such a git process (callers add nothing from process.env). */
export function guardedGitEnvironment(options: GuardedGitOptions): NodeJS.ProcessEnv {
  const config = [...NETWORK_CONFIG, ['http.proxy', options.proxyUrl] as const, [`remote.${options.remote.name}.url`, options.remote.url] as const];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: '/nonexistent',
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PROTOCOL_FROM_USER: '0',
    // Something that fails, so git never gets credentials it was not given.
    GIT_ASKPASS: '/bin/false',
    GIT_CONFIG_COUNT: String(config.length),
  };
  config.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}

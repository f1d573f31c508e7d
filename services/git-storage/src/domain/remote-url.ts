/**
 * A remote's address for RemoteService: only http and https, credentials from the request put into the URL's
 * userinfo for the one command (git sends them to that host only), and every text reported about it scrubbed of
 * them (Gitea's util.SanitizeCredentialURLs and its migration error messages).
 */
import type { RemoteAuth } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError } from '@cairn/rpc';

export interface RemoteTarget {
  /** The URL git uses, credentials included: never logged, never reported. */
  url: string;
  /** The host (for the guard's refusal message). */
  host: string;
  /** The password or token in `url`, to scrub from git's messages even when it appears outside a URL. */
  secrets: string[];
}

const badUrl = (message: string) => CairnError.invalid(message, { reason: 'bad_url' });

/** Parses `address` and adds `auth`; INVALID_ARGUMENT reason bad_url when it is not a usable http(s) URL. */
export function remoteTarget(address: string, auth: RemoteAuth | undefined): RemoteTarget {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f]/.test(address)) throw badUrl('the remote address contains spaces or control characters');
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw badUrl('the remote address is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badUrl('only http and https remotes are supported');
  if (url.hostname === '') throw badUrl('the remote address has no host');
  // As Gitea's migrations: a token is the password, with "oauth2" as the user name when none is given.
  const username = auth?.token ? auth.username || 'oauth2' : (auth?.username ?? '');
  const password = auth?.token ? auth.token : (auth?.password ?? '');
  if (username !== '' || password !== '') {
    url.username = encodeURIComponent(username);
    url.password = encodeURIComponent(password);
  }
  // The password (or token) is scrubbed wherever it appears; a user name is only hidden inside URLs.
  const secrets = [password, url.password].filter((secret) => secret !== '');
  return { url: url.toString(), host: url.hostname, secrets: [...new Set(secrets)] };
}

/** Gitea's util.SanitizeCredentialURLs: `scheme://user:pass@host` becomes `scheme://sanitized-credential@host`. */
export function sanitizeCredentialUrls(text: string): string {
  return text.replace(/([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)[^\s/@'"]+@/g, '$1sanitized-credential@');
}

/** `text` without `target`'s credentials, in URLs or anywhere else. */
export function redact(text: string, target: Pick<RemoteTarget, 'secrets'>): string {
  let clean = sanitizeCredentialUrls(text);
  for (const secret of target.secrets) clean = clean.split(secret).join('<credentials>');
  return clean;
}

/** Whether git's message says the remote refused the credentials (HTTP 401/403, or it wanted some it did not get). */
export function isAuthenticationFailure(stderr: string): boolean {
  return /Authentication failed|could not read (Username|Password)|returned error: 40[13]\b/i.test(stderr);
}

/** The branch `git ls-remote --symref <remote> HEAD` names (`ref: refs/heads/main\tHEAD`); '' without one. */
export function remoteHeadBranch(lsRemote: string): string {
  const match = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(lsRemote);
  return match === null ? '' : match[1];
}

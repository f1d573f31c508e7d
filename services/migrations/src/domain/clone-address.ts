/**
 * An import's clone address (Gitea's services/forms.ParseRemoteAddr and services/migrations.IsMigrateURLAllowed):
 * local paths are refused (Cairn has no `[security] IMPORT_LOCAL_PATHS`), only http and https are taken (Gitea also
 * takes git://, which Cairn's outbound guard cannot see through: refused with its own message), and the credentials
 * — the request's `auth_username`/`auth_password`, else the address's own — are taken out of the address, so that
 * the address stored and shown (Gitea's original_url) never holds them.
 */
import { CairnError } from '@cairn/rpc';

export const LOCAL_PATH_REFUSED = 'You are not allowed to import local repositories.';
export const HOST_REFUSED = 'You can not import from disallowed hosts.';
export const GIT_PROTOCOL_REFUSED = 'Invalid clone address: the git:// protocol is not supported, use http:// or https://.';

export interface CloneAddress {
  /** The address without credentials (also Gitea's original_url). */
  url: string;
  /** Its host name as URL.hostname gives it (an IPv6 literal keeps its brackets), lower-cased. */
  host: string;
  username: string;
  password: string;
}

export function parseCloneAddress(address: string, authUsername: string, authPassword: string): CloneAddress {
  const trimmed = address.trim();
  // Gitea: anything but http://, https:// and git:// is a local path (file:, no scheme, a path).
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) || /^file:/i.test(trimmed)) {
    throw CairnError.invalid(LOCAL_PATH_REFUSED, { reason: 'local_path' });
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw CairnError.invalid(`Invalid clone address: ${trimmed.replace(/\/\/[^@/]*@/, '//')}`, { reason: 'bad_url' });
  }
  if (url.protocol === 'git:') throw CairnError.invalid(GIT_PROTOCOL_REFUSED, { reason: 'bad_url' });
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw CairnError.invalid(`Invalid clone address: the ${url.protocol.slice(0, -1)} protocol is not supported, use http:// or https://.`, {
      reason: 'bad_url',
    });
  }
  if (url.hostname === '' || /[\r\n\0]/.test(decodeURIComponent(trimmed))) {
    throw CairnError.invalid('Invalid clone address: the address has no host or holds control characters.', { reason: 'bad_url' });
  }
  // Gitea's ParseRemoteAddr: the form's credentials, when given, replace the address's.
  const fromForm = authUsername !== '' || authPassword !== '';
  const username = fromForm ? authUsername : decodeURIComponent(url.username);
  const password = fromForm ? authPassword : decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  return { url: url.toString(), host: url.hostname.toLowerCase(), username, password };
}

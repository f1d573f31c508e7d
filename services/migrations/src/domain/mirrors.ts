/**
 * Mirror rules (Gitea's routers/api/v1/repo/mirror.go, repo.go updateMirror, services/mirror): the settings that
 * turn mirrors off, a push mirror's interval and remote address, and remote names.
 */
import { randomInt } from 'node:crypto';
import type { CairnConfig } from '@cairn/config';
import { formatGoDuration, parseDuration } from '@cairn/config';
import { CairnError, isCairnError } from '@cairn/rpc';
import { parseCloneAddress, type CloneAddress } from './clone-address';

export const MIRRORS_DISABLED = 'Mirror feature is disabled';
export const NOT_A_MIRROR = 'Repository is not a mirror';

/** Gitea's answer to every mirror API call while `[mirror] ENABLED = false` (400 at the gateway). */
export function assertMirrorsEnabled(config: Pick<CairnConfig, 'mirror'>): void {
  if (!config.mirror.enabled) throw CairnError.precondition(MIRRORS_DISABLED, { reason: 'mirrors_disabled' });
}

/** A new push mirror also needs `[mirror] DISABLE_NEW_PUSH` off (Gitea's setting.Mirror.DisableNewPush). */
export function assertNewPushMirrorAllowed(config: Pick<CairnConfig, 'mirror'>): void {
  assertMirrorsEnabled(config);
  if (config.mirror.disableNewPush) throw CairnError.precondition(MIRRORS_DISABLED, { reason: 'mirrors_disabled' });
}

/**
 * A push mirror's interval (Gitea's CreatePushMirror): a Go duration, 0 (no periodic sync) or at least
 * `[mirror] MIN_INTERVAL`; INVALID_ARGUMENT (400) otherwise. Answers milliseconds.
 */
export function pushMirrorInterval(text: string, minMs: number): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw CairnError.invalid(`time: invalid duration "${text}"`, { reason: 'interval_invalid' });
  if (ms !== 0 && ms < minMs) {
    throw CairnError.invalid(`invalid push mirror interval: ${formatGoDuration(ms)} is below minimum interval: ${formatGoDuration(minMs)}`, {
      reason: 'interval_invalid',
    });
  }
  return ms;
}

/**
 * A push mirror's remote address, with Gitea's HandleRemoteAddressError answers: a local path or a host the
 * `[migrations]` policy refuses is PERMISSION_DENIED reason host_refused "Permission denied" (Gitea's 401), anything else malformed is
 * INVALID_ARGUMENT "Invalid Url " / "Invalid mirror protocol" (400). The host itself is checked by the caller.
 */
export function parsePushAddress(address: string, username: string, password: string): CloneAddress {
  try {
    return parseCloneAddress(address, username, password);
  } catch (error) {
    if (isCairnError(error) && error.reason === 'local_path') throw permissionDenied();
    if (isCairnError(error) && error.reason === 'bad_url') {
      const protocol = /protocol/.test(error.message);
      throw CairnError.invalid(protocol ? 'Invalid mirror protocol' : 'Invalid Url ', { reason: 'bad_url' });
    }
    throw error;
  }
}

/** Gitea's 401 for a remote address it may not use. */
export function permissionDenied(): CairnError {
  return CairnError.denied('Permission denied', { reason: 'host_refused' });
}

const NAME_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** "remote_mirror_" and 10 random alphanumerics (Gitea's util.CryptoRandomString(10)). */
export function newRemoteName(): string {
  let suffix = '';
  for (let i = 0; i < 10; i += 1) suffix += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return `remote_mirror_${suffix}`;
}

/** A pull mirror's interval as repos keeps it ("8h0m0s"; "" for none recorded is the default). */
export function pullMirrorIntervalMs(text: string, defaultMs: number): number {
  if (text === '') return defaultMs;
  return parseDuration(text) ?? defaultMs;
}

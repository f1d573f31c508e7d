/**
 * Commit signature verification for `require_signed_commits`: a commit is verified when its `gpgsig` is an
 * OpenPGP signature over the commit without that header, made by a key registered (and verified) for the
 * committer's e-mail address.
 */
import type * as OpenPgp from 'openpgp' with { 'resolution-mode': 'import' };
import type { VerificationKey } from '@cairn/proto/cairn/accounts/v1/gpg_keys_service';
import type { Commit } from '@cairn/proto/cairn/git/v1/git_service';

const PGP_SIGNATURE = '-----BEGIN PGP SIGNATURE-----';

let openpgpModule: Promise<typeof OpenPgp> | undefined;

/** openpgp's types are ESM-only: a CommonJS module reaches it through a real dynamic import (kept by tsc). */
function loadOpenPgp(): Promise<typeof OpenPgp> {
  openpgpModule ??= import('openpgp');
  return openpgpModule;
}

/** Parsed keys by armored text: a push of many commits by one committer parses each key once. */
export type KeyCache = Map<string, Promise<OpenPgp.PublicKey | undefined>>;

function parseKey(cache: KeyCache, armored: string): Promise<OpenPgp.PublicKey | undefined> {
  let parsed = cache.get(armored);
  if (parsed === undefined) {
    parsed = loadOpenPgp()
      .then((openpgp) => openpgp.readKey({ armoredKey: armored }))
      .catch(() => undefined);
    cache.set(armored, parsed);
  }
  return parsed;
}

/** Whether `commit` carries a signature that one of `keys` (those of its committer's e-mail) verifies. */
export async function isVerifiedCommit(commit: Commit, keys: readonly VerificationKey[], cache: KeyCache): Promise<boolean> {
  if (!commit.signature.startsWith(PGP_SIGNATURE)) return false;
  const email = commit.committer?.email.toLowerCase() ?? '';
  const candidates = keys.filter((key) => key.email.toLowerCase() === email);
  if (email === '' || candidates.length === 0) return false;
  const parsedKeys = (await Promise.all(candidates.map((key) => parseKey(cache, key.publicKey)))).filter(
    (key): key is OpenPgp.PublicKey => key !== undefined,
  );
  if (parsedKeys.length === 0) return false;
  const openpgp = await loadOpenPgp();
  try {
    const signature = await openpgp.readSignature({ armoredSignature: commit.signature });
    const message = await openpgp.createMessage({ binary: Buffer.from(commit.signedPayload, 'utf8') });
    const { signatures } = await openpgp.verify({ message, signature, verificationKeys: parsedKeys, format: 'binary' });
    for (const result of signatures) {
      if (await result.verified.then(() => true, () => false)) return true;
    }
    return false;
  } catch {
    // A malformed signature verifies nothing.
    return false;
  }
}

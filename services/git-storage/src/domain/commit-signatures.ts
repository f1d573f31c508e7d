/**
 * Commit signature verification (Gitea's models/asymkey ParseCommitWithSignature), for `require_signed_commits`
 * and the API's `verification`: a commit is verified when its `gpgsig` is an OpenPGP signature over the commit
 * without that header, made by a key registered (and verified) for the committer's e-mail address, or else made by
 * the instance's own signing key (whatever the committer: the signer is then the key's SIGNING_NAME / EMAIL).
 */
import type * as OpenPgp from 'openpgp' with { 'resolution-mode': 'import' };
import type { VerificationKey } from '@cairn/proto/cairn/accounts/v1/gpg_keys_service';
import type { Commit, Verification } from '@cairn/proto/cairn/git/v1/git_service';

/** The instance's signing key (git/signing.ts): armored public key(s) and the signer it vouches for. */
export interface InstanceKey {
  armoredKeys: string;
  name: string;
  email: string;
}

const PGP_SIGNATURE = '-----BEGIN PGP SIGNATURE-----';

/** Gitea's reasons for an unverified commit. */
const NOT_SIGNED_REASON = 'gpg.error.not_signed_commit';
const EXTRACT_SIGN_REASON = 'gpg.error.extract_sign';
const NO_KEY_REASON = 'gpg.error.no_gpg_keys_found';

let openpgpModule: Promise<typeof OpenPgp> | undefined;

/** openpgp's types are ESM-only: a CommonJS module reaches it through a real dynamic import (kept by tsc). */
function loadOpenPgp(): Promise<typeof OpenPgp> {
  openpgpModule ??= import('openpgp');
  return openpgpModule;
}

/** Parsed keys by armored text: many commits by one committer parse each key once. */
type KeyCache = Map<string, Promise<OpenPgp.PublicKey | undefined>>;

function parseKey(cache: KeyCache, armored: string): Promise<OpenPgp.PublicKey | undefined> {
  let parsed = cache.get(armored);
  if (parsed === undefined) {
    parsed = loadOpenPgp()
      .then((openpgp) => openpgp.readKey({ armoredKey: armored }))
      // Deliberate: a user's stored key that does not parse verifies nothing (Gitea skips such keys too).
      .catch(() => undefined);
    cache.set(armored, parsed);
  }
  return parsed;
}

function unverified(reason: string): Verification {
  return { verified: false, reason, signerEmail: '', signerUserId: 0, keyId: '', signerName: '' };
}

/** The long id of the first of `keys` that made `signature` over `payload`, or undefined. */
async function signingKeyId(openpgp: typeof OpenPgp, payload: string, signature: OpenPgp.Signature, keys: OpenPgp.PublicKey[]): Promise<string | undefined> {
  try {
    const message = await openpgp.createMessage({ binary: Buffer.from(payload, 'utf8') });
    const { signatures } = await openpgp.verify({ message, signature, verificationKeys: keys, format: 'binary' });
    for (const result of signatures) {
      if (await result.verified.then(() => true, () => false)) return result.keyID.toHex().toUpperCase();
    }
  } catch {
    // A signature these keys cannot check verifies nothing.
  }
  return undefined;
}

/** The instance key with its keys parsed. */
interface ParsedInstanceKey {
  key: InstanceKey;
  keys: OpenPgp.PublicKey[];
}

async function verifyCommit(
  commit: Commit,
  keys: readonly VerificationKey[],
  cache: KeyCache,
  instance: ParsedInstanceKey | undefined,
): Promise<Verification> {
  if (commit.signature === '') return unverified(NOT_SIGNED_REASON);
  // Other kinds (SSH signatures) match no GPG key, as in Gitea without SSH keys.
  if (!commit.signature.startsWith(PGP_SIGNATURE)) return unverified(NO_KEY_REASON);
  const openpgp = await loadOpenPgp();
  let signature: OpenPgp.Signature;
  try {
    signature = await openpgp.readSignature({ armoredSignature: commit.signature });
  } catch {
    return unverified(EXTRACT_SIGN_REASON);
  }
  const email = commit.committer?.email.toLowerCase() ?? '';
  const candidates = email === '' ? [] : keys.filter((key) => key.email.toLowerCase() === email);
  for (const candidate of candidates) {
    const parsed = await parseKey(cache, candidate.publicKey);
    if (parsed === undefined) continue;
    const keyId = await signingKeyId(openpgp, commit.signedPayload, signature, [parsed]);
    if (keyId !== undefined) return { verified: true, reason: '', signerEmail: candidate.email, signerUserId: candidate.userId, keyId, signerName: '' };
  }
  // Gitea's default-key check: the instance signed it (a merge it wrote), whoever the committer is.
  if (instance !== undefined && instance.keys.length > 0) {
    const keyId = await signingKeyId(openpgp, commit.signedPayload, signature, instance.keys);
    if (keyId !== undefined) return { verified: true, reason: '', signerEmail: instance.key.email, signerUserId: 0, keyId, signerName: instance.key.name };
  }
  return unverified(NO_KEY_REASON);
}

/**
 * Verifies each of `commits` (in order): the keys of every signed commit's committer come from one `findKeys`
 * call, then the instance's key (`instanceKey`, asked for once, and only when a signed commit needs it). `stopAt`
 * ends the work early (the push check needs only the first unverified commit).
 */
export async function verifyCommits(
  commits: readonly Commit[],
  findKeys: (emails: string[]) => Promise<VerificationKey[]>,
  stopAt: (verification: Verification) => boolean = () => false,
  instanceKey: () => Promise<InstanceKey | undefined> = async () => undefined,
): Promise<Verification[]> {
  const emails = [...new Set(commits.flatMap((commit) => (commit.signature !== '' && commit.committer?.email ? [commit.committer.email] : [])))];
  const keys = emails.length === 0 ? [] : await findKeys(emails);
  const cache: KeyCache = new Map();
  let instance: Promise<ParsedInstanceKey | undefined> | undefined;
  const loadInstance = () =>
    (instance ??= instanceKey().then(async (key) => {
      if (key === undefined) return undefined;
      const openpgp = await loadOpenPgp();
      // No catch: the instance's own gpg exported this key, so one openpgp cannot read is a fault to report (the
      // call fails and logs it), not a key that silently verifies nothing.
      const keys = await openpgp.readKeys({ armoredKeys: key.armoredKeys });
      return { key, keys };
    }));
  const verifications: Verification[] = [];
  for (const commit of commits) {
    const signed = commit.signature.startsWith(PGP_SIGNATURE);
    const verification = await verifyCommit(commit, keys, cache, signed ? await loadInstance() : undefined);
    verifications.push(verification);
    if (stopAt(verification)) break;
  }
  return verifications;
}

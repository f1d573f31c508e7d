/**
 * Reading armored GPG public keys as Gitea does (models/asymkey/gpg_key.go `parseGPGKey`, gpg_key_common.go,
 * gpg_key_add.go): every key of the block, the same key given twice merged into one, key ids as 16 upper-case
 * hex digits, capabilities from the key's algorithm, the primary identity's self-signature lifetime as the expiry
 * of the key and its subkeys, and the e-mail addresses of identities that are not revoked. Signatures are not
 * checked here, as in Gitea.
 */
import type { AnyPacket, Key, SignaturePacket, Subkey } from 'openpgp' with { 'resolution-mode': 'import' };
import { gpgKeyInvalid } from './gpg-key-errors';
import { loadOpenPgp, type OpenPgpModule } from './openpgp';

/** What a key (primary or subkey) is and can do. */
export interface ParsedKeyPart {
  /** Long key id, upper-case hex. */
  keyId: string;
  /** Base64 of the public-key packet (Gitea's `content`). */
  content: string;
  created: Date;
  /** Undefined: never expires. */
  expires: Date | undefined;
  canSign: boolean;
  canEncryptComms: boolean;
  canEncryptStorage: boolean;
  canCertify: boolean;
}

export interface ParsedGpgKey extends ParsedKeyPart {
  /** The key with its subkeys, armored, for signature checks. */
  armored: string;
  /** E-mail addresses of the identities that are not revoked, as written in them (trimmed). */
  identityEmails: string[];
  subkeys: ParsedKeyPart[];
  /** The key itself, to check a signature with. */
  key: Key;
}

type KeyAlgorithm = ReturnType<Key['getAlgorithmInfo']>['algorithm'];

/** Algorithms that can sign (go-crypto's `PublicKeyAlgorithm.CanSign`). */
const SIGNING_ALGORITHMS: ReadonlySet<KeyAlgorithm> = new Set<KeyAlgorithm>([
  'rsaEncryptSign',
  'rsaSign',
  'dsa',
  'ecdsa',
  'eddsaLegacy',
  'ed25519',
  'ed448',
  'aedsa',
  'pqc_mldsa_ed25519',
]);

/** Algorithms that can encrypt (`PublicKeyAlgorithm.CanEncrypt`). */
const ENCRYPTING_ALGORITHMS: ReadonlySet<KeyAlgorithm> = new Set<KeyAlgorithm>([
  'rsaEncryptSign',
  'rsaEncrypt',
  'elgamal',
  'ecdh',
  'x25519',
  'x448',
  'aedh',
  'pqc_mlkem_x25519',
]);

/** What go-crypto's ReadArmoredKeyRing says about input without an armored block. */
const NO_ARMORED_DATA = 'openpgp: invalid argument: no armored data found';

function packetBase64({ PacketList }: OpenPgpModule, packet: AnyPacket): string {
  const list = new PacketList<AnyPacket>();
  list.push(packet);
  return Buffer.from(list.write()).toString('base64');
}

function keyPart(openpgp: OpenPgpModule, part: Key | Subkey, expires: Date | undefined): ParsedKeyPart {
  const { algorithm } = part.getAlgorithmInfo();
  const signs = SIGNING_ALGORITHMS.has(algorithm);
  const encrypts = ENCRYPTING_ALGORITHMS.has(algorithm);
  return {
    keyId: part.getKeyID().toHex().toUpperCase(),
    content: packetBase64(openpgp, part.keyPacket),
    created: part.getCreationTime(),
    expires,
    canSign: signs,
    canEncryptComms: encrypts,
    canEncryptStorage: encrypts,
    canCertify: signs,
  };
}

function latest(signatures: readonly SignaturePacket[]): SignaturePacket | undefined {
  let found: SignaturePacket | undefined;
  for (const signature of signatures) {
    if (found === undefined || (signature.created?.getTime() ?? 0) >= (found.created?.getTime() ?? 0)) found = signature;
  }
  return found;
}

/** Gitea's `getExpiryTime`: the lifetime in the primary identity's self-signature (else the first identity's). */
function expiryOf(key: Key): Date | undefined {
  let chosen: SignaturePacket | undefined;
  for (const user of key.users) {
    const selfSignature = latest(user.selfCertifications);
    if (selfSignature === undefined) continue;
    if (chosen === undefined) chosen = selfSignature;
    else if (selfSignature.isPrimaryUserID === true) {
      chosen = selfSignature;
      break;
    }
  }
  const lifetime = chosen?.keyExpirationTime ?? 0;
  return lifetime > 0 ? new Date(key.getCreationTime().getTime() + lifetime * 1000) : undefined;
}

function identityEmails(key: Key): string[] {
  const emails: string[] = [];
  for (const user of key.users) {
    if (user.userID === null || user.revocationSignatures.length > 0) continue;
    const email = user.userID.email.trim();
    if (email !== '') emails.push(email);
  }
  return emails;
}

/** Gitea's `AddGPGKey` coalescing: one entry per primary key id, later copies merged into the first. */
async function coalesce(keys: readonly Key[]): Promise<Key[]> {
  const byId = new Map<string, Key>();
  for (const key of keys) {
    const id = key.getKeyID().toHex();
    const first = byId.get(id);
    byId.set(id, first === undefined ? key : await first.update(key));
  }
  return [...byId.values()];
}

function toParsedKey(openpgp: OpenPgpModule, key: Key): ParsedGpgKey {
  const expires = expiryOf(key);
  return {
    ...keyPart(openpgp, key, expires),
    armored: key.armor(),
    identityEmails: identityEmails(key),
    subkeys: key.subkeys.map((subkey) => keyPart(openpgp, subkey, expires)),
    key,
  };
}

/** The keys of an armored block (a private key block gives its public keys); INVALID_ARGUMENT (gpg_key_invalid) otherwise. */
export async function parseArmoredKeys(armored: string): Promise<ParsedGpgKey[]> {
  if (!armored.includes('-----BEGIN PGP')) throw gpgKeyInvalid(NO_ARMORED_DATA);
  const openpgp = await loadOpenPgp();
  let keys: Key[];
  try {
    const read = await openpgp.readKeys({ armoredKeys: armored });
    keys = await coalesce(read.map((key) => (key.isPrivate() ? key.toPublic() : key)));
  } catch (error) {
    throw gpgKeyInvalid(`openpgp: invalid data: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (keys.length === 0) throw gpgKeyInvalid('openpgp: invalid argument: no keys found');
  return keys.map((key) => toParsedKey(openpgp, key));
}

/**
 * Proving a GPG key without a matching e-mail address (Gitea's models/asymkey/gpg_key_verify.go
 * `VerificationToken` and gpg_key_add.go): the user signs a token that names them and the current minute;
 * a detached signature of it, by one of the keys, adds that key as verified.
 */
import { createHash } from 'node:crypto';
import type { Key } from 'openpgp' with { 'resolution-mode': 'import' };
import { loadOpenPgp } from './openpgp';

export interface TokenOwner {
  id: number;
  name: string;
  email: string;
  created: Date;
}

const MINUTE = 60_000;

/**
 * The token valid `minutesAhead` minutes from the start of the current minute: Gitea asks for a signature of
 * the token one minute ahead and also accepts the one of the current minute, so a token stays good for one
 * to two minutes.
 */
export function verificationToken(owner: TokenOwner, now: Date, minutesAhead: number): string {
  const window = new Date(Math.floor(now.getTime() / MINUTE) * MINUTE + minutesAhead * MINUTE);
  const text = `${window.toUTCString()}:${owner.created.toUTCString()}:${owner.name}:${owner.email}:${owner.id}`;
  return createHash('sha256').update(text).digest('hex');
}

/** The tokens a signature may sign: the one Gitea asks for first, then the previous minute's. */
export function acceptedTokens(owner: TokenOwner, now: Date): [asked: string, previous: string] {
  return [verificationToken(owner, now, 1), verificationToken(owner, now, 0)];
}

async function verifies(keys: readonly Key[], armoredSignature: string, data: Uint8Array): Promise<Key | undefined> {
  const { createMessage, readSignature, verify } = await loadOpenPgp();
  const signature = await readSignature({ armoredSignature });
  // A binary signature covers the bytes as given; openpgp checks a text-mode one over their canonical line ends.
  const message = await createMessage({ binary: data });
  const { signatures } = await verify({ message, signature, verificationKeys: [...keys], format: 'binary' });
  for (const { keyID, verified } of signatures) {
    try {
      await verified;
    } catch {
      continue;
    }
    return keys.find((key) => key.getKeys(keyID).length > 0);
  }
  return undefined;
}

/**
 * The key among `keys` whose detached armored signature signs one of `tokens` (each also with a trailing LF or
 * CRLF, as a signed file may end); undefined when none does or the signature cannot be read.
 */
export async function tokenSigner(keys: readonly Key[], armoredSignature: string, tokens: readonly string[]): Promise<Key | undefined> {
  for (const token of tokens) {
    for (const text of [token, `${token}\n`, `${token}\r\n`]) {
      try {
        const signer = await verifies(keys, armoredSignature, Buffer.from(text, 'utf8'));
        if (signer !== undefined) return signer;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

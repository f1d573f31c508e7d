/**
 * The errors of GPG keys, with Gitea's texts (routers/api/v1/user/gpg_key.go `HandleAddGPGKeyError`,
 * models/asymkey/error.go) and a reason per case for the gateway to pick Gitea's status.
 */
import { CairnError } from '@cairn/rpc';

export const GpgKeyReason = {
  invalid: 'gpg_key_invalid',
  exists: 'gpg_key_exists',
  noEmail: 'gpg_key_no_email',
  signatureInvalid: 'gpg_key_signature_invalid',
  notFound: 'gpg_key_not_found',
} as const;

/** Gitea's `ErrGPGKeyParsing` (422). */
export function gpgKeyInvalid(detail: string): CairnError {
  return CairnError.invalid(`failed to parse gpg key ${detail}`, { reason: GpgKeyReason.invalid });
}

/** Gitea's `ErrGPGKeyIDAlreadyUsed` (422). */
export function gpgKeyExists(): CairnError {
  return CairnError.exists('A key with the same id already exists', { reason: GpgKeyReason.exists });
}

/** Gitea's `ErrGPGNoEmailFound` (404 in Gitea's API), naming the token a signature would verify the key with. */
export function gpgKeyNoEmail(token: string): CairnError {
  return CairnError.invalid(
    `None of the emails attached to the GPG key could be found. It may still be added if you provide a valid signature for the token: ${token}`,
    { reason: GpgKeyReason.noEmail },
  );
}

/** Gitea's `ErrGPGInvalidTokenSignature` (422). */
export function gpgKeySignatureInvalid(token: string): CairnError {
  return CairnError.invalid(
    `The provided GPG key, signature and token do not match or token is out of date. Provide a valid signature for the token: ${token}`,
    { reason: GpgKeyReason.signatureInvalid },
  );
}

/** Gitea's `ErrGPGKeyNotExist`. */
export function gpgKeyNotFound(id: number): CairnError {
  return CairnError.notFound(`public key does not exist [id: ${id}]`, { reason: GpgKeyReason.notFound });
}

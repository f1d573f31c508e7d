/** accounts' GpgKey → Gitea's `GPGKey` JSON (services/convert/convert.go `ToGPGKey`). */
import { goTime } from '@cairn/http';
import type { GpgKey } from '@cairn/proto/cairn/accounts/v1/gpg_keys_service';

/** Gitea's `api.GPGKeyEmail`. */
export interface ApiGpgKeyEmail {
  email: string;
  verified: boolean;
}

/** Gitea's `api.GPGKey`, keys in its order. */
export interface ApiGpgKey {
  id: number;
  primary_key_id: string;
  key_id: string;
  public_key: string;
  emails: ApiGpgKeyEmail[];
  subkeys: ApiGpgKey[];
  can_sign: boolean;
  can_encrypt_comms: boolean;
  can_encrypt_storage: boolean;
  can_certify: boolean;
  verified: boolean;
  created_at: string;
  /** Go's zero time for a key that never expires. */
  expires_at: string;
}

export function toApiGpgKey(key: GpgKey): ApiGpgKey {
  return {
    id: key.id,
    primary_key_id: key.primaryKeyId,
    key_id: key.keyId,
    public_key: key.publicKey,
    // Only activated addresses are stored with a key.
    emails: key.emails.map((email) => ({ email, verified: true })),
    // Gitea writes null for a subkey's own `emails` and `subkeys`; its description (and every client) takes lists.
    subkeys: key.subkeys.map(toApiGpgKey),
    can_sign: key.canSign,
    can_encrypt_comms: key.canEncryptComms,
    can_encrypt_storage: key.canEncryptStorage,
    can_certify: key.canCertify,
    verified: key.verified,
    created_at: goTime(key.created),
    expires_at: goTime(key.expires),
  };
}

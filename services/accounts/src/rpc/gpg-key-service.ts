/**
 * GpgKeyService: users' GPG keys (Gitea's routers/api/v1/user/gpg_key.go over models/asymkey). Keys are parsed
 * in domain/gpg-key-parse.ts, proven by signature in domain/gpg-key-token.ts, matched to the owner's address in
 * domain/gpg-key-emails.ts, and stored with their subkeys in store/gpg-keys.ts.
 */
import type { AsyncServiceOf } from '@cairn/rpc';
import type { GpgKey, GpgKeyServiceService, VerificationKey } from '@cairn/proto/cairn/accounts/v1/gpg_keys_service';
import { userNotFound } from '../domain/errors';
import { ownerAddressesAmong } from '../domain/gpg-key-emails';
import { gpgKeyExists, gpgKeyNoEmail, gpgKeyNotFound, gpgKeySignatureInvalid } from '../domain/gpg-key-errors';
import { parseArmoredKeys } from '../domain/gpg-key-parse';
import { acceptedTokens, tokenSigner } from '../domain/gpg-key-token';
import { pageWindow } from '../domain/user-search';
import { viewerFromActor } from '../domain/visibility-rules';
import {
  deleteGpgKey,
  findGpgKey,
  findVerificationKeys,
  gpgKeyIdTaken,
  insertGpgKey,
  listGpgKeys,
  type GpgKeyRecord,
} from '../store/gpg-keys';
import { findUserById, type UserRow } from '../store/users';
import { isAccountVisible } from './account-visibility';
import type { AccountsContext } from './context';
import { guard } from './guard';

function toGpgKey(record: GpgKeyRecord): GpgKey {
  return {
    id: record.id,
    ownerId: record.ownerId,
    keyId: record.keyId,
    primaryKeyId: record.primaryKeyId,
    publicKey: record.content,
    emails: record.emails,
    subkeys: record.subkeys.map(toGpgKey),
    canSign: record.canSign,
    canEncryptComms: record.canEncryptComms,
    canEncryptStorage: record.canEncryptStorage,
    canCertify: record.canCertify,
    verified: record.verified,
    created: record.created,
    expires: record.expires,
  };
}

export function createGpgKeyService({ db }: AccountsContext): AsyncServiceOf<typeof GpgKeyServiceService> {
  /** The individual user acting; NOT_FOUND for anyone else (anonymous, an organization, a deleted account). */
  async function actingUser(userId: number): Promise<UserRow> {
    const user = userId > 0 ? await findUserById(db.pool, userId) : null;
    if (user === null || user.type !== 0) throw userNotFound(userId, '');
    return user;
  }

  return {
    async listGpgKeys(request) {
      const viewer = viewerFromActor(request.viewer);
      return guard(async () => {
        const user = await findUserById(db.pool, request.userId);
        if (user === null || !(await isAccountVisible(db.pool, viewer, user))) throw userNotFound(request.userId, '');
        const { keys, total } = await listGpgKeys(db.pool, user.id, pageWindow(request.page));
        return { keys: keys.map(toGpgKey), total };
      });
    },

    async getGpgKey(request) {
      const viewer = viewerFromActor(request.actor);
      return guard(async () => {
        const key = await findGpgKey(db.pool, viewer.id, request.id);
        if (key === null) throw gpgKeyNotFound(request.id);
        return { key: toGpgKey(key) };
      });
    },

    async createGpgKey(request) {
      const viewer = viewerFromActor(request.actor);
      return guard(async () => {
        const owner = await actingUser(viewer.id);
        let keys = await parseArmoredKeys(request.armoredPublicKey);
        const [asked, previous] = acceptedTokens({ id: owner.id, name: owner.name, email: owner.email, created: owner.created_at }, new Date());
        // A signature of the token proves the key that made it, which is then the only key added.
        const verified = request.armoredSignature !== '';
        if (verified) {
          const signer = await tokenSigner(
            keys.map((parsed) => parsed.key),
            request.armoredSignature,
            [asked, previous],
          );
          if (signer === undefined) throw gpgKeySignatureInvalid(asked);
          keys = keys.filter((parsed) => parsed.key === signer);
        }
        const owned = { email: owner.email, isActive: owner.is_active };
        const added = await db.pool.transaction(async (tx) => {
          const records: GpgKeyRecord[] = [];
          for (const key of keys) {
            if (await gpgKeyIdTaken(tx, key.keyId)) throw gpgKeyExists();
            const emails = ownerAddressesAmong(owned, key.identityEmails);
            if (!verified && emails.length === 0) throw gpgKeyNoEmail(asked);
            records.push(await insertGpgKey(tx, { ownerId: owner.id, key, emails, verified }));
          }
          return records;
        });
        return { key: toGpgKey(added[0]) };
      });
    },

    async deleteGpgKey(request) {
      const viewer = viewerFromActor(request.actor);
      return guard(() =>
        db.pool.transaction(async (tx) => {
          if (!(await deleteGpgKey(tx, viewer.id, request.id))) throw gpgKeyNotFound(request.id);
          return {};
        }),
      );
    },

    async findVerificationKeys(request) {
      return guard(async () => {
        const rows = await findVerificationKeys(db.pool, request.emails);
        const keys: VerificationKey[] = [];
        for (const email of new Set(request.emails)) {
          for (const row of rows) {
            if (row.email !== email.toLowerCase()) continue;
            keys.push({ email, userId: row.user_id, publicKey: row.armored, keyIds: row.signing_key_ids });
          }
        }
        return { keys };
      });
    },
  };
}

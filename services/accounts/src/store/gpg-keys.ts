/** The `gpg_keys` table: primary keys with their subkeys, and the keys that may verify a signature by e-mail. */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import type { ParsedGpgKey, ParsedKeyPart } from '../domain/gpg-key-parse';
import type { PageWindow } from '../domain/user-search';

const gpgKeyRow = z.object({
  id: z.number(),
  owner_id: z.number(),
  key_id: z.string(),
  parent_id: z.number().nullable(),
  /** The primary key's id for a subkey, '' for a primary key. */
  primary_key_id: z.string(),
  content: z.string(),
  emails: z.array(z.string()),
  verified: z.boolean(),
  can_sign: z.boolean(),
  can_encrypt_comms: z.boolean(),
  can_encrypt_storage: z.boolean(),
  can_certify: z.boolean(),
  created_at: z.date(),
  expires_at: z.date().nullable(),
});
type GpgKeyRow = z.infer<typeof gpgKeyRow>;

/** A stored key; `subkeys` is empty for a subkey. */
export interface GpgKeyRecord {
  id: number;
  ownerId: number;
  keyId: string;
  primaryKeyId: string;
  content: string;
  emails: string[];
  verified: boolean;
  canSign: boolean;
  canEncryptComms: boolean;
  canEncryptStorage: boolean;
  canCertify: boolean;
  created: Date;
  expires: Date | undefined;
  subkeys: GpgKeyRecord[];
}

/** Every column of a row, with the primary key's id joined in from the parent row (alias `parent`). */
const ROW_COLUMNS = sql.fragment`
  k.id, k.owner_id, k.key_id, k.parent_id, coalesce(parent.key_id, '') AS primary_key_id, k.content, k.emails, k.verified,
  k.can_sign, k.can_encrypt_comms, k.can_encrypt_storage, k.can_certify, k.created_at, k.expires_at
`;
const FROM_KEYS = sql.fragment`gpg_keys k LEFT JOIN gpg_keys parent ON parent.id = k.parent_id`;

function toRecord(row: GpgKeyRow, subkeys: GpgKeyRecord[]): GpgKeyRecord {
  return {
    id: row.id,
    ownerId: row.owner_id,
    keyId: row.key_id,
    primaryKeyId: row.primary_key_id,
    content: row.content,
    emails: row.emails,
    verified: row.verified,
    canSign: row.can_sign,
    canEncryptComms: row.can_encrypt_comms,
    canEncryptStorage: row.can_encrypt_storage,
    canCertify: row.can_certify,
    created: row.created_at,
    expires: row.expires_at ?? undefined,
    subkeys,
  };
}

/** The rows with their subkeys, in the given order. */
async function withSubkeys(db: CommonQueryMethods, rows: readonly GpgKeyRow[]): Promise<GpgKeyRecord[]> {
  const primaryIds = rows.filter((row) => row.parent_id === null).map((row) => row.id);
  const subkeyRows =
    primaryIds.length === 0
      ? []
      : await db.any(sql.type(gpgKeyRow)`
          SELECT ${ROW_COLUMNS} FROM ${FROM_KEYS} WHERE k.parent_id = ANY(${sql.array(primaryIds, 'int8')}) ORDER BY k.id
        `);
  return rows.map((row) =>
    toRecord(
      row,
      subkeyRows.filter((subkey) => subkey.parent_id === row.id).map((subkey) => toRecord(subkey, [])),
    ),
  );
}

/** Whether any key or subkey has this key id (Gitea refuses such a key, whoever added it). */
export function gpgKeyIdTaken(db: CommonQueryMethods, keyId: string): Promise<boolean> {
  return db.exists(sql.unsafe`SELECT 1 FROM gpg_keys WHERE key_id = ${keyId}`);
}

export interface NewGpgKey {
  ownerId: number;
  key: ParsedGpgKey;
  /** The owner's addresses among the key's identities. */
  emails: readonly string[];
  verified: boolean;
}

function partColumns(part: ParsedKeyPart) {
  return {
    key_id: part.keyId,
    content: part.content,
    can_sign: part.canSign,
    can_encrypt_comms: part.canEncryptComms,
    can_encrypt_storage: part.canEncryptStorage,
    can_certify: part.canCertify,
    created_at: part.created.toISOString(),
    expires_at: part.expires?.toISOString() ?? null,
  };
}

export async function insertGpgKey(tx: DatabaseTransactionConnection, { ownerId, key, emails, verified }: NewGpgKey): Promise<GpgKeyRecord> {
  const primary = partColumns(key);
  const primaryId = await tx.oneFirst(sql.type(z.object({ id: z.number() }))`
    INSERT INTO gpg_keys (owner_id, key_id, content, armored, emails, verified, can_sign, can_encrypt_comms, can_encrypt_storage,
                          can_certify, created_at, expires_at)
    VALUES (${ownerId}, ${primary.key_id}, ${primary.content}, ${key.armored}, ${sql.array([...emails], 'text')}, ${verified},
            ${primary.can_sign}, ${primary.can_encrypt_comms}, ${primary.can_encrypt_storage}, ${primary.can_certify},
            ${primary.created_at}, ${primary.expires_at})
    RETURNING id
  `);
  if (key.subkeys.length > 0) {
    await tx.query(sql.unsafe`
      INSERT INTO gpg_keys (owner_id, key_id, parent_id, content, can_sign, can_encrypt_comms, can_encrypt_storage, can_certify,
                            created_at, expires_at)
      SELECT ${ownerId}, s.key_id, ${primaryId}, s.content, s.can_sign, s.can_encrypt_comms, s.can_encrypt_storage, s.can_certify,
             s.created_at, s.expires_at
      FROM ROWS FROM (
        jsonb_to_recordset(${sql.jsonb(key.subkeys.map(partColumns))})
          AS (key_id text, content text, can_sign boolean, can_encrypt_comms boolean, can_encrypt_storage boolean,
              can_certify boolean, created_at timestamptz, expires_at timestamptz)
      ) WITH ORDINALITY
        AS s(key_id, content, can_sign, can_encrypt_comms, can_encrypt_storage, can_certify, created_at, expires_at, position)
      ORDER BY s.position
    `);
  }
  const found = await findGpgKey(tx, ownerId, primaryId);
  if (found === null) throw new Error(`GPG key ${primaryId} vanished inside its own transaction`);
  return found;
}

const countRow = z.object({ count: z.number() });

/** A page of the owner's primary keys in the order they were added, and their total. */
export async function listGpgKeys(
  db: CommonQueryMethods,
  ownerId: number,
  window: PageWindow | undefined,
): Promise<{ keys: GpgKeyRecord[]; total: number }> {
  const paging = window === undefined ? sql.fragment`` : sql.fragment`LIMIT ${window.limit} OFFSET ${window.offset}`;
  const rows = await db.any(sql.type(gpgKeyRow)`
    SELECT ${ROW_COLUMNS} FROM ${FROM_KEYS} WHERE k.owner_id = ${ownerId} AND k.parent_id IS NULL ORDER BY k.id ${paging}
  `);
  const { count } = await db.one(sql.type(countRow)`
    SELECT count(*)::int AS count FROM gpg_keys WHERE owner_id = ${ownerId} AND parent_id IS NULL
  `);
  return { keys: await withSubkeys(db, rows), total: count };
}

/** The owner's key or subkey with this id (Gitea's `GetGPGKeyForUserByID`), or null. */
export async function findGpgKey(db: CommonQueryMethods, ownerId: number, id: number): Promise<GpgKeyRecord | null> {
  const row = await db.maybeOne(sql.type(gpgKeyRow)`SELECT ${ROW_COLUMNS} FROM ${FROM_KEYS} WHERE k.id = ${id} AND k.owner_id = ${ownerId}`);
  return row === null ? null : (await withSubkeys(db, [row]))[0];
}

/** Deletes the owner's key (with its subkeys); false when the owner has no key of that id. */
export async function deleteGpgKey(tx: DatabaseTransactionConnection, ownerId: number, id: number): Promise<boolean> {
  const deleted = await tx.maybeOne(sql.unsafe`DELETE FROM gpg_keys WHERE id = ${id} AND owner_id = ${ownerId} RETURNING id`);
  return deleted !== null;
}

const verificationRow = z.object({
  /** The owner's address, lower-case. */
  email: z.string(),
  user_id: z.number(),
  id: z.number(),
  armored: z.string(),
  signing_key_ids: z.array(z.string()),
});
type VerificationKeyRow = z.infer<typeof verificationRow>;

/**
 * For each address (case-insensitive), the primary keys of the active user who owns it that may vouch for it
 * (Gitea's `checkKeyEmails`): keys with that address among their identities, and keys verified by signature.
 * `signing_key_ids` are the key and subkey ids whose algorithm can sign.
 */
export function findVerificationKeys(db: CommonQueryMethods, emails: readonly string[]): Promise<readonly VerificationKeyRow[]> {
  const lowered = [...new Set(emails.map((email) => email.toLowerCase()))];
  return db.any(sql.type(verificationRow)`
    SELECT lower(u.email) AS email, u.id AS user_id, k.id, k.armored,
           ARRAY(SELECT s.key_id FROM gpg_keys s WHERE (s.id = k.id OR s.parent_id = k.id) AND s.can_sign ORDER BY s.id) AS signing_key_ids
    FROM users u JOIN gpg_keys k ON k.owner_id = u.id AND k.parent_id IS NULL
    WHERE lower(u.email) = ANY(${sql.array(lowered, 'text')}) AND u.type = 0 AND u.is_active
      AND (k.verified OR EXISTS (SELECT 1 FROM unnest(k.emails) AS address WHERE lower(address) = lower(u.email)))
    ORDER BY u.id, k.id
  `);
}

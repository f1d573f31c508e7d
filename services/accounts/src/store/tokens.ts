/** The `access_tokens` table: queries and the row → proto mapping. Secrets never reach this module. */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import type { AccessToken } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { userColumns, userRow, type UserRow } from './users';

export const tokenRow = z.object({
  id: z.number(),
  user_id: z.number(),
  name: z.string(),
  scopes: z.array(z.string()),
  token_last_eight: z.string(),
  created_at: z.date(),
  last_used_at: z.date().nullable(),
});
export type TokenRow = z.infer<typeof tokenRow>;

const TOKEN_COLUMNS = sql.fragment`id, user_id, name, scopes, token_last_eight, created_at, last_used_at`;

/** `last_used_at` is only rewritten when older than this, so a busy token costs no write per request. */
const LAST_USED_RESOLUTION = sql.interval({ minutes: 1 });

export function toAccessToken(row: TokenRow): AccessToken {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    scopes: row.scopes,
    tokenLastEight: row.token_last_eight,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at ?? undefined,
  };
}

export interface NewToken {
  userId: number;
  name: string;
  tokenHash: string;
  tokenLastEight: string;
  scopes: readonly string[];
}

export function insertToken(tx: DatabaseTransactionConnection, token: NewToken): Promise<TokenRow> {
  return tx.one(sql.type(tokenRow)`
    INSERT INTO access_tokens (user_id, name, token_hash, token_last_eight, scopes)
    VALUES (${token.userId}, ${token.name}, ${token.tokenHash}, ${token.tokenLastEight}, ${sql.array([...token.scopes], 'text')})
    RETURNING ${TOKEN_COLUMNS}
  `);
}

/** One page of a user's tokens, newest first; `limit` undefined lists them all. */
export function listTokens(
  db: CommonQueryMethods,
  userId: number,
  page: { limit: number; offset: number } | undefined,
): Promise<readonly TokenRow[]> {
  const paging = page === undefined ? sql.fragment`` : sql.fragment`LIMIT ${page.limit} OFFSET ${page.offset}`;
  return db.any(sql.type(tokenRow)`
    SELECT ${TOKEN_COLUMNS} FROM access_tokens WHERE user_id = ${userId} ORDER BY id DESC ${paging}
  `);
}

const countRow = z.object({ count: z.number() });

export async function countTokens(db: CommonQueryMethods, userId: number): Promise<number> {
  const row = await db.one(sql.type(countRow)`SELECT count(*)::int8 AS count FROM access_tokens WHERE user_id = ${userId}`);
  return row.count;
}

const idRow = z.object({ id: z.number() });

export async function findTokenIdsByName(db: CommonQueryMethods, userId: number, name: string): Promise<number[]> {
  const rows = await db.any(sql.type(idRow)`SELECT id FROM access_tokens WHERE user_id = ${userId} AND name = ${name}`);
  return rows.map((row) => row.id);
}

/** Deletes the user's token `id`; null when the user has no such token. */
export function deleteToken(tx: DatabaseTransactionConnection, userId: number, id: number): Promise<TokenRow | null> {
  return tx.maybeOne(sql.type(tokenRow)`
    DELETE FROM access_tokens WHERE id = ${id} AND user_id = ${userId} RETURNING ${TOKEN_COLUMNS}
  `);
}

const tokenWithUserRow = userRow.extend({
  token_id: z.number(),
  token_name: z.string(),
  token_scopes: z.array(z.string()),
  token_last_eight: z.string(),
  token_created_at: z.date(),
  token_last_used_at: z.date().nullable(),
});

/**
 * The token whose secret hashes to `tokenHash`, with its user, in one round trip; marks it used (at most
 * once per LAST_USED_RESOLUTION).
 */
export async function findTokenByHash(
  db: CommonQueryMethods,
  tokenHash: string,
): Promise<{ token: TokenRow; user: UserRow } | null> {
  const row = await db.maybeOne(sql.type(tokenWithUserRow)`
    WITH found AS (
      SELECT * FROM access_tokens WHERE token_hash = ${tokenHash}
    ), touched AS (
      UPDATE access_tokens t SET last_used_at = now()
      FROM found
      WHERE t.id = found.id AND (found.last_used_at IS NULL OR found.last_used_at < now() - ${LAST_USED_RESOLUTION})
      RETURNING t.id, t.last_used_at
    )
    SELECT ${userColumns('u')},
           found.id AS token_id, found.name AS token_name, found.scopes AS token_scopes,
           found.token_last_eight, found.created_at AS token_created_at,
           coalesce(touched.last_used_at, found.last_used_at) AS token_last_used_at
    FROM found
    JOIN users u ON u.id = found.user_id
    LEFT JOIN touched ON touched.id = found.id
  `);
  if (row === null) return null;
  const { token_id, token_name, token_scopes, token_last_eight, token_created_at, token_last_used_at, ...user } = row;
  return {
    token: {
      id: token_id,
      user_id: user.id,
      name: token_name,
      scopes: token_scopes,
      token_last_eight,
      created_at: token_created_at,
      last_used_at: token_last_used_at,
    },
    user,
  };
}

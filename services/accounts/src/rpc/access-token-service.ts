/**
 * AccessTokenService: personal access tokens. The secret is generated here, returned once by
 * CreateAccessToken and stored only as its hash.
 */
import type { AsyncServiceOf } from '@cairn/rpc';
import type { AccessTokenServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import {
  invalidCredentials,
  tokenNameAmbiguous,
  tokenNameEmpty,
  tokenNameUsed,
  tokenNotFound,
  userNotFound,
} from '../domain/errors';
import { normalizeScopes, requireScopesWithin } from '../domain/scopes';
import { generateTokenSecret, hashTokenSecret, isTokenSecretShape, tokenLastEight } from '../domain/token';
import { enqueueAccessTokenCreated, enqueueAccessTokenDeleted } from '../events/outbox';
import {
  countTokens,
  deleteToken,
  findTokenByHash,
  findTokenIdsByName,
  insertToken,
  listTokens,
  toAccessToken,
} from '../store/tokens';
import { findUserById, toUser } from '../store/users';
import type { AccountsContext } from './context';
import { guard } from './guard';

/** Gitea reads a key that parses as a number as a token id, anything else as a name. */
function parseTokenId(idOrName: string): number | undefined {
  if (!/^\d+$/.test(idOrName)) return undefined;
  const id = Number(idOrName);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

export function createAccessTokenService({ db }: AccountsContext): AsyncServiceOf<typeof AccessTokenServiceService> {
  return {
    async createAccessToken(request) {
      const { userId, name } = request;
      if (name.trim() === '') throw tokenNameEmpty();
      const secret = generateTokenSecret();
      return guard(() =>
        db.pool.transaction(async (tx) => {
          if ((await findUserById(tx, userId)) === null) throw userNotFound(userId, '');
          // Gitea checks the name before the scopes; the unique constraint still catches a racing twin.
          if ((await findTokenIdsByName(tx, userId, name)).length > 0) throw tokenNameUsed();
          const scopes = normalizeScopes(request.scopes);
          if (request.creatorToken !== undefined) requireScopesWithin(scopes, request.creatorToken.scopes);
          const token = toAccessToken(
            await insertToken(tx, { userId, name, tokenHash: hashTokenSecret(secret), tokenLastEight: tokenLastEight(secret), scopes }),
          );
          await enqueueAccessTokenCreated(tx, token, request.actorId);
          return { token, sha1: secret };
        }),
      );
    },

    async listAccessTokens(request) {
      const { page } = request;
      // No page, or no limit, lists every token (a user has few).
      const paging =
        page === undefined || page.limit <= 0
          ? undefined
          : { limit: page.limit, offset: (Math.max(page.page, 1) - 1) * page.limit };
      return guard(async () => {
        const [rows, total] = await Promise.all([
          listTokens(db.pool, request.userId, paging),
          countTokens(db.pool, request.userId),
        ]);
        return { tokens: rows.map(toAccessToken), total };
      });
    },

    async deleteAccessToken(request) {
      const { userId, idOrName } = request;
      return guard(() =>
        db.pool.transaction(async (tx) => {
          let id = parseTokenId(idOrName);
          if (id === undefined) {
            const ids = await findTokenIdsByName(tx, userId, idOrName);
            if (ids.length === 0) throw tokenNotFound(idOrName);
            if (ids.length > 1) throw tokenNameAmbiguous(idOrName);
            id = ids[0];
          }
          const deleted = await deleteToken(tx, userId, id);
          if (deleted === null) throw tokenNotFound(idOrName);
          await enqueueAccessTokenDeleted(tx, { id: deleted.id, userId: deleted.user_id }, request.actorId);
          return {};
        }),
      );
    },

    async authenticateToken(request) {
      // Only our own secret shape is looked up; anything else (an OAuth2 JWT, garbage) fails fast.
      if (!isTokenSecretShape(request.token)) throw invalidCredentials();
      return guard(async () => {
        const found = await findTokenByHash(db.pool, hashTokenSecret(request.token));
        if (found === null) throw invalidCredentials();
        return { token: toAccessToken(found.token), user: toUser(found.user) };
      });
    },
  };
}

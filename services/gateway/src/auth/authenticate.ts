/**
 * Credentials → Caller, as Gitea's auth group does it. Tokens resolve through accounts' AuthenticateToken
 * (remembered in the TokenCache); Basic auth treats the password — or the user name when the password is
 * empty or `x-oauth-basic` — as a token first, then signs in with the password if
 * `[service] ENABLE_BASIC_AUTHENTICATION` allows it (if not, the request simply stays anonymous).
 * Credentials that do not check out are a 401 on every route, public ones included. Password sign-ins carry
 * the client's address to accounts, which throttles failures (429 with `Retry-After`) and bounds hashing (503).
 */
import type { IncomingMessage } from 'node:http';
import type { CairnConfig } from '@cairn/config';
import { HttpError } from '@cairn/http';
import { Code, isCairnError } from '@cairn/rpc';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { GatewayClients } from '../clients';
import { ANONYMOUS, type Caller } from './caller';
import { createClientAddressOf } from './client-address';
import type { Credentials } from './credentials';
import type { ResolvedToken, TokenCache } from './token-cache';

export const INVALID_CREDENTIALS = 'invalid username, password or token';

// The only secrets accounts issues (40 hex characters, Gitea's `sha1` shape). A Basic password of another
// shape cannot be a token, so it skips the token lookup and goes straight to the password check.
const TOKEN_SHAPE = /^[0-9a-f]{40}$/;

function invalidCredentials(): HttpError {
  return HttpError.unauthorized(INVALID_CREDENTIALS);
}

// Reasons of accounts' AuthenticatePassword refusals (accounts_service.proto).
const SIGN_IN_THROTTLED = 'sign_in_throttled';
const PASSWORD_CHECKS_BUSY = 'password_checks_busy';

/**
 * Maps accounts' "no such credential" to the 401 and its refusals to 429 (too many failures for this account or
 * address: the client's doing) or 503 (too many password checks waiting: the server's capacity, whoever asks),
 * both with `Retry-After`; a failure of accounts itself stays what it is (503).
 */
function rethrowUnauthenticated(error: unknown): never {
  if (isCairnError(error) && (error.code === Code.UNAUTHENTICATED || error.code === Code.NOT_FOUND)) {
    throw invalidCredentials();
  }
  if (isCairnError(error) && error.code === Code.RESOURCE_EXHAUSTED) {
    const { retryAfterSeconds } = error;
    if (error.reason === SIGN_IN_THROTTLED) throw new HttpError(429, error.message, { cause: error, retryAfterSeconds });
    if (error.reason === PASSWORD_CHECKS_BUSY) throw new HttpError(503, error.message, { cause: error, retryAfterSeconds });
  }
  throw error;
}

export interface AuthenticatorOptions {
  config: CairnConfig;
  clients: GatewayClients;
  cache: TokenCache;
}

/**
 * Synchronous when no call is needed (no credentials, a cached token): most requests then cost no promise.
 * `req` gives the client's address, read only for a password sign-in.
 */
export type Authenticate = (credentials: Credentials, req: IncomingMessage) => Caller | Promise<Caller>;

export function createAuthenticator({ config, clients, cache }: AuthenticatorOptions): Authenticate {
  const clientAddressOf = createClientAddressOf(config.security.reverseProxyTrustedProxies);

  /** The token's owner and scopes from accounts (remembered), or undefined when accounts knows no such token. */
  const fetchToken = async (secret: string): Promise<ResolvedToken | undefined> => {
    try {
      const { token, user } = await clients.tokens.authenticateToken({ token: secret });
      if (token === undefined || user === undefined) return undefined;
      const resolved = { token, user };
      cache.set(secret, resolved);
      return resolved;
    } catch (error) {
      if (isCairnError(error) && error.code === Code.UNAUTHENTICATED) return undefined;
      throw error;
    }
  };

  const signedIn = (user: User, isBasicAuth: boolean, tokenScopes: string[] | undefined): Caller => ({
    user,
    isBasicAuth,
    tokenScopes,
  });

  const signInWithToken = (resolved: ResolvedToken | undefined): Caller => {
    if (resolved === undefined) throw invalidCredentials();
    return signedIn(resolved.user, false, resolved.token.scopes);
  };

  const signInWithBasic = async (username: string, password: string, req: IncomingMessage): Promise<Caller> => {
    const candidate = password === '' || password === 'x-oauth-basic' ? username : password;
    if (TOKEN_SHAPE.test(candidate)) {
      const resolved = cache.get(candidate) ?? (await fetchToken(candidate));
      if (resolved !== undefined) return signedIn(resolved.user, true, resolved.token.scopes);
    }
    if (!config.service.enableBasicAuthentication) return ANONYMOUS;
    const { user } = await clients.users
      .authenticatePassword({ login: username, password, clientAddress: clientAddressOf(req) })
      .catch(rethrowUnauthenticated);
    if (user === undefined) throw invalidCredentials();
    return signedIn(user, true, undefined);
  };

  return (credentials, req) => {
    switch (credentials.kind) {
      case 'none':
        return ANONYMOUS;
      case 'token': {
        const cached = cache.get(credentials.token);
        return cached !== undefined ? signInWithToken(cached) : fetchToken(credentials.token).then(signInWithToken);
      }
      case 'basic':
        return signInWithBasic(credentials.username, credentials.password, req);
    }
  };
}

/** Who a request acts for, once authentication, the sign-in checks and sudo are done. */
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';

export interface Caller {
  /** The signed-in user (after sudo, the impersonated one); undefined for an anonymous request. */
  user: User | undefined;
  /** The request came with an `Authorization: Basic` header (a password, or a token in it). */
  isBasicAuth: boolean;
  /** The token's scopes when a token authenticated the request; password sign-ins carry no scope. */
  tokenScopes: string[] | undefined;
}

export const ANONYMOUS: Caller = Object.freeze({ user: undefined, isBasicAuth: false, tokenScopes: undefined });

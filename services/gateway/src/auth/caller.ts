/** Who a request acts for, once authentication, the sign-in checks and sudo are done. */
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';

export interface Caller {
  /** The signed-in user (after sudo, the impersonated one); undefined for an anonymous request. */
  user: User | undefined;
  /** The request came with an `Authorization: Basic` header (a password, or a token in it). */
  isBasicAuth: boolean;
  /** The token's scopes when a token authenticated the request; password sign-ins carry no scope. */
  tokenScopes: string[] | undefined;
}

export const ANONYMOUS: Caller = Object.freeze({ user: undefined, isBasicAuth: false, tokenScopes: undefined });

/** Who asks, as the services' `Actor viewer` fields take it; undefined for an anonymous caller. */
export function viewerOf(user: User | undefined): Actor | undefined {
  return user === undefined ? undefined : { userId: user.id, isAdmin: user.isAdmin, isRestricted: user.restricted };
}

/** The scope that limits a token to public resources. */
export const PUBLIC_ONLY_SCOPE = 'public-only';

/** The request's token is limited to public resources (Gitea's `ctx.PublicOnly`). */
export function isPublicOnly(caller: Caller): boolean {
  return caller.tokenScopes?.includes(PUBLIC_ONLY_SCOPE) ?? false;
}

/**
 * Every error accounts sends, in one place: Gitea's message texts (models/user/error.go, models/db/name.go,
 * routers/api/v1/user/app.go) so the gateway can pass them through, and a reason per case so it can pick
 * Gitea's HTTP status where a code alone is ambiguous.
 */
import { CairnError } from '@cairn/rpc';

export const Reason = {
  userExists: 'user_exists',
  emailUsed: 'email_used',
  nameReserved: 'name_reserved',
  nameInvalid: 'name_invalid',
  emailInvalid: 'email_invalid',
  passwordTooShort: 'password_too_short',
  visibilityInvalid: 'visibility_invalid',
  userNotFound: 'user_not_found',
  tokenNameUsed: 'token_name_used',
  tokenNameInvalid: 'token_name_invalid',
  tokenScope: 'token_scope',
  tokenScopeExceeded: 'token_scope_exceeded',
  tokenNotFound: 'token_not_found',
  tokenNameAmbiguous: 'token_name_ambiguous',
  invalidCredentials: 'invalid_credentials',
  sortInvalid: 'sort_invalid',
  notAUser: 'not_a_user',
  ownerHasRepositories: 'owner_has_repositories',
  emailNotificationsPreferenceInvalid: 'email_notifications_preference_invalid',
} as const;

export function userExists(name: string): CairnError {
  return CairnError.exists(`user already exists [name: ${name}]`, { reason: Reason.userExists });
}

export function emailUsed(email: string): CairnError {
  return CairnError.exists(`e-mail already in use [email: ${email}]`, { reason: Reason.emailUsed });
}

export function nameEmpty(): CairnError {
  return CairnError.invalid('name is empty', { reason: Reason.nameInvalid });
}

export function nameReserved(name: string): CairnError {
  return CairnError.invalid(`name is reserved [name: ${name}]`, { reason: Reason.nameReserved });
}

export function namePatternNotAllowed(pattern: string): CairnError {
  return CairnError.invalid(`name pattern is not allowed [pattern: ${pattern}]`, { reason: Reason.nameReserved });
}

export function nameCharsNotAllowed(name: string): CairnError {
  return CairnError.invalid(`name is invalid [${name}]: must be valid alpha or numeric or dash(-_) or dot characters`, {
    reason: Reason.nameInvalid,
  });
}

export function nameTooLong(name: string, max: number): CairnError {
  return CairnError.invalid(`name is invalid [${name}]: must be at most ${max} characters`, { reason: Reason.nameInvalid });
}

export function emailInvalid(email: string): CairnError {
  return CairnError.invalid(`e-mail invalid [email: ${email}]`, { reason: Reason.emailInvalid });
}

export function emailCharNotSupported(email: string): CairnError {
  return CairnError.invalid(`e-mail address contains unsupported character [email: ${email}]`, {
    reason: Reason.emailInvalid,
  });
}

export function passwordTooShort(minLength: number): CairnError {
  return CairnError.invalid(`password must be at least ${minLength} characters`, { reason: Reason.passwordTooShort });
}

export function visibilityInvalid(value: string): CairnError {
  return CairnError.invalid(`invalid visibility [visibility: ${value}]: must be public, limited or private`, {
    reason: Reason.visibilityInvalid,
  });
}

/** An individual-user operation (rename, delete) named an organization. */
export function notAUser(name: string): CairnError {
  return CairnError.invalid(`${name} is an organization not a user`, { reason: Reason.notAUser });
}

/**
 * Gitea's ErrUserOwnRepos: a user or organization that owns repositories is not deleted. Gitea answers it with 422 on
 * the admin route and 500 on `DELETE /orgs/{org}`; Cairn answers 422 on both (FAILED_PRECONDITION).
 */
export function ownerHasRepositories(uid: number): CairnError {
  return CairnError.precondition(`user still has ownership of repositories [uid: ${uid}]`, { reason: Reason.ownerHasRepositories });
}

export function userNotFound(uid: number, name: string): CairnError {
  return CairnError.notFound(`user does not exist [uid: ${uid}, name: ${name}]`, { reason: Reason.userNotFound });
}

/** A name that is neither an account's (visible to the caller) nor a redirect to one (Gitea's ErrUserRedirectNotExist). */
export function nameNotFound(name: string): CairnError {
  return CairnError.notFound(`user redirect does not exist [name: ${name}]`, { reason: Reason.userNotFound });
}

export function tokenNameUsed(): CairnError {
  return CairnError.exists('access token name has been used already', { reason: Reason.tokenNameUsed });
}

export function tokenNameEmpty(): CairnError {
  return CairnError.invalid('access token name is required', { reason: Reason.tokenNameInvalid });
}

export function tokenScopeEmpty(): CairnError {
  return CairnError.invalid('access token must have a scope', { reason: Reason.tokenScope });
}

export function tokenScopeInvalid(scope: string): CairnError {
  // Gitea wraps its own parse error: "invalid access token scope provided: invalid access token scope: <s>".
  return CairnError.invalid(`invalid access token scope provided: invalid access token scope: ${scope}`, {
    reason: Reason.tokenScope,
  });
}

export function tokenScopeExceeded(requested: readonly string[], limit: readonly string[]): CairnError {
  // Cairn's own rule (Gitea has none): worded like Gitea's scope refusals in routers/api/v1/api.go.
  return CairnError.denied(
    `token scope exceeds the scope of the token used to create it, requested=[${requested.join(',')}], token scope=${limit.join(',')}`,
    { reason: Reason.tokenScopeExceeded },
  );
}

export function tokenNotFound(idOrName: string): CairnError {
  return CairnError.notFound(`access token does not exist [id or name: ${idOrName}]`, { reason: Reason.tokenNotFound });
}

export function tokenNameAmbiguous(name: string): CairnError {
  return CairnError.precondition(`multiple matches for token name '${name}'`, { reason: Reason.tokenNameAmbiguous });
}

/** One answer for every failed sign-in, so callers cannot tell an unknown user from a wrong secret. */
export function invalidCredentials(): CairnError {
  return CairnError.unauthenticated('invalid username, password or token', { reason: Reason.invalidCredentials });
}

/** An e-mail notification preference Gitea does not know (its settings page offers only those four). */
export function emailNotificationsPreferenceInvalid(value: string): CairnError {
  return CairnError.invalid(`invalid email notifications preference [preference: ${value}]: must be enabled, onmention, disabled or andyourown`, {
    reason: Reason.emailNotificationsPreferenceInvalid,
  });
}

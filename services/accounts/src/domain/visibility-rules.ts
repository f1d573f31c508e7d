/**
 * Who may see which account: THE place for user and organization visibility (Gitea's `IsUserVisibleToViewer`,
 * `isUserVisibleToViewerCond`, `HasOrgOrUserVisible`, the `GET /orgs` filter and `convert.ToUser`). Pure
 * functions: the caller passes the viewer and the facts a rule needs (membership, shared organizations), and
 * stores turn the list scopes into SQL. Anything invisible is reported as NOT_FOUND by the callers, never as
 * PERMISSION_DENIED, so a hidden account cannot be told apart from a missing one.
 */
import { ANONYMOUS, type Viewer, isSignedIn, viewerFromActor } from '@cairn/rpc';
import type { Visibility } from './visibility';

/** Who asks (@cairn/rpc's viewer of an RPC's `Actor`). */
export { ANONYMOUS, type Viewer, isSignedIn, viewerFromActor };

/** Site admins and the account itself see everything about an account (Gitea's `authed` in convert.ToUser). */
export function isSelfOrAdmin(viewer: Viewer, accountId: number): boolean {
  return isSignedIn(viewer) && (viewer.isAdmin || viewer.id === accountId);
}

// ---------------------------------------------------------------------------------------------------------
// Users

export interface VisibleUser {
  id: number;
  visibility: Visibility;
}

/** Facts about the viewer's relation to a private user. */
export interface UserRelation {
  /** The viewer and the user are in a team of the same organization, or the user is an organization with the viewer in one of its teams. */
  sharesOrg: boolean;
}

const UNRELATED: UserRelation = { sharesOrg: false };

/**
 * Lookup of one user (`/users/{username}…`), Gitea's `IsUserVisibleToViewer`: admin or self → visible;
 * public → everyone; limited → signed-in viewers that are not restricted; private → signed-in, not restricted
 * viewers who share an organization with the user (followers too, once follows exist).
 */
export function canSeeUser(viewer: Viewer, user: VisibleUser, relation: UserRelation = UNRELATED): boolean {
  if (isSelfOrAdmin(viewer, user.id)) return true;
  switch (user.visibility) {
    case 'public':
      return true;
    case 'limited':
      return isSignedIn(viewer) && !viewer.isRestricted;
    case 'private':
      return isSignedIn(viewer) && !viewer.isRestricted && relation.sharesOrg;
  }
}

/**
 * Which users a list or search may include for this viewer (Gitea's `isUserVisibleToViewerCond`), as a scope a
 * store turns into SQL:
 * - `all`: admins;
 * - `public`: anonymous and restricted viewers see only public users;
 * - `signed_in`: everyone else sees public and limited users, themselves, and private users they share an
 *   organization with.
 */
export type UserListScope = { kind: 'all' } | { kind: 'public' } | { kind: 'signed_in'; viewerId: number };

export function userListScope(viewer: Viewer): UserListScope {
  if (isSignedIn(viewer) && viewer.isAdmin) return { kind: 'all' };
  if (!isSignedIn(viewer) || viewer.isRestricted) return { kind: 'public' };
  return { kind: 'signed_in', viewerId: viewer.id };
}

/** The list rule as a predicate over one user: what `userListScope` selects, for tests and in-memory filters. */
export function isUserInListScope(scope: UserListScope, user: VisibleUser, relation: UserRelation = UNRELATED): boolean {
  switch (scope.kind) {
    case 'all':
      return true;
    case 'public':
      return user.visibility === 'public';
    case 'signed_in':
      return user.visibility !== 'private' || user.id === scope.viewerId || relation.sharesOrg;
  }
}

export interface EmailOwner {
  id: number;
  keepEmailPrivate: boolean;
}

/** The real e-mail goes only to signed-in viewers, and only when the user does not hide it (self/admin always). */
export function canSeeEmail(viewer: Viewer, user: EmailOwner): boolean {
  if (!isSignedIn(viewer)) return false;
  return !user.keepEmailPrivate || isSelfOrAdmin(viewer, user.id);
}

/** Gitea's `GetPlaceholderEmail`: `<id>+<lower name>@<NO_REPLY_ADDRESS>`. */
export function placeholderEmail(user: { id: number; name: string }, noReplyAddress: string): string {
  return `${user.id}+${user.name.toLowerCase()}@${noReplyAddress}`;
}

/** `is_admin`, `login_name`, `source_id`, `last_login`, `language`, `active`, `prohibit_login`: self and admins only. */
export function canSeeAccountDetails(viewer: Viewer, accountId: number): boolean {
  return isSelfOrAdmin(viewer, accountId);
}

// ---------------------------------------------------------------------------------------------------------
// Organizations

export interface VisibleOrg {
  visibility: Visibility;
}

/**
 * Lookup of one organization (`/orgs/{org}…`), Gitea's `HasOrgOrUserVisible`: anonymous → public only;
 * admin → all; a member → visible; a restricted viewer → only organizations they belong to; private → members
 * only; public and limited → every other signed-in viewer.
 */
export function canSeeOrg(viewer: Viewer, org: VisibleOrg, viewerIsMember: boolean): boolean {
  if (!isSignedIn(viewer)) return org.visibility === 'public';
  if (viewer.isAdmin || viewerIsMember) return true;
  if (viewer.isRestricted) return false;
  return org.visibility !== 'private';
}

/**
 * Which organizations a list may include (`GET /orgs`, a user's organizations), the same rule as `canSeeOrg`
 * as a scope for SQL: `visibilities` are shown to everyone in scope; `memberId` (0: none) adds the organizations
 * that user belongs to.
 */
export type OrgListScope = { kind: 'all' } | { kind: 'filtered'; visibilities: readonly Visibility[]; memberId: number };

/** `publicOnly`: the caller's token is public-only (Gitea's `ctx.PublicOnly`), so public organizations only. */
export function orgListScope(viewer: Viewer, publicOnly = false): OrgListScope {
  if (!isSignedIn(viewer) || publicOnly) return { kind: 'filtered', visibilities: ['public'], memberId: 0 };
  if (viewer.isAdmin) return { kind: 'all' };
  if (viewer.isRestricted) return { kind: 'filtered', visibilities: [], memberId: viewer.id };
  return { kind: 'filtered', visibilities: ['public', 'limited'], memberId: viewer.id };
}

export function isOrgInListScope(scope: OrgListScope, org: VisibleOrg, viewerIsMember: boolean): boolean {
  if (scope.kind === 'all') return true;
  return scope.visibilities.includes(org.visibility) || (scope.memberId > 0 && viewerIsMember);
}

/** Gitea blanks an organization's e-mail for anonymous callers. */
export function canSeeOrgEmail(viewer: Viewer): boolean {
  return isSignedIn(viewer);
}

/**
 * Which of a user's organizations a viewer may list (`/users/{username}/orgs`, Gitea's `listUserOrgs` with
 * `DoerViewOtherVisibility`): all of them to the user and site admins; to anyone else only the memberships the
 * user made public, in organizations the viewer could list (`orgListScope`) and of a visibility shown to
 * strangers — public to anonymous viewers, public and limited to signed-in ones (never private, even to a
 * fellow member). A public-only token (`publicOnly`) sees public organizations only: to the user and site admins
 * every membership in one (`public_orgs`), to others the public memberships in one.
 */
export type UserOrgsScope =
  | { kind: 'all' }
  | { kind: 'public_orgs' }
  | { kind: 'public_memberships'; visibilities: readonly Visibility[]; orgs: OrgListScope };

export function userOrgsScope(viewer: Viewer, userId: number, publicOnly = false): UserOrgsScope {
  if (isSelfOrAdmin(viewer, userId)) return publicOnly ? { kind: 'public_orgs' } : { kind: 'all' };
  const visibilities: Visibility[] = isSignedIn(viewer) && !publicOnly ? ['public', 'limited'] : ['public'];
  return { kind: 'public_memberships', visibilities, orgs: orgListScope(viewer, publicOnly) };
}

export function isUserOrgInScope(scope: UserOrgsScope, org: VisibleOrg, membership: { isPublic: boolean; viewerIsMember: boolean }): boolean {
  if (scope.kind === 'all') return true;
  if (scope.kind === 'public_orgs') return org.visibility === 'public';
  return membership.isPublic && scope.visibilities.includes(org.visibility) && isOrgInListScope(scope.orgs, org, membership.viewerIsMember);
}

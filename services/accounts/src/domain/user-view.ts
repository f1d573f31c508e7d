/**
 * A user as one viewer may see them (Gitea's `convert.ToUser`), applied by accounts before a user leaves it for
 * a viewer, so no caller can forget it. Who may see what is decided in visibility-rules.ts; this module only
 * blanks what those rules withhold.
 */
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { canSeeAccountDetails, canSeeEmail, placeholderEmail, type Viewer } from './visibility-rules';

/** Go's zero time as the proto carries it (the epoch): what Gitea shows as `last_login` to others. */
const NEVER = new Date(0);

/**
 * `user` for `viewer`: the real e-mail only where `canSeeEmail` allows it (else the placeholder address), and
 * the account details and personal settings only for the user themself and site admins.
 */
export function userForViewer(user: User, viewer: Viewer, noReplyAddress: string): User {
  const email = canSeeEmail(viewer, user) ? user.email : placeholderEmail({ id: user.id, name: user.login }, noReplyAddress);
  if (canSeeAccountDetails(viewer, user.id)) return { ...user, email };
  return {
    ...user,
    email,
    loginName: '',
    sourceId: 0,
    language: '',
    isAdmin: false,
    lastLogin: NEVER,
    active: false,
    prohibitLogin: false,
    mustChangePassword: false,
    maxRepoCreation: -1,
    allowGitHook: false,
    allowImportLocal: false,
    allowCreateOrganization: false,
    theme: '',
    diffViewStyle: '',
    emailNotificationsPreference: '',
    updated: undefined,
  };
}

/**
 * Gitea's Ghost user (`user_model.NewGhostUser()`, id -1, name "Ghost"): what Gitea shows in place of a user whose
 * account is gone (a deleted issue poster, commenter …), as `ToUser` shapes it: a signed-in caller sees its empty
 * e-mail, an anonymous caller the placeholder address (`-1+ghost@<NO_REPLY_ADDRESS>`).
 */
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { type ApiUser, toApiUser } from './user';

export const GHOST_USER_ID = -1;

const EPOCH = new Date(0);

export function ghostUser(rootUrl: string, viewer: Actor | undefined, noReplyAddress: string): ApiUser {
  return replaceUser(rootUrl, viewer, noReplyAddress, 'Ghost');
}

/**
 * Gitea's `user_model.NewReplaceUser(name)` (id -1, the given name): how a migrated item's author with no account
 * here is shown where Gitea shows one (a reaction's user: "<original_author>(<service>)").
 */
export function replaceUser(rootUrl: string, viewer: Actor | undefined, noReplyAddress: string, name: string): ApiUser {
  const ghost: User = {
    id: GHOST_USER_ID,
    login: name,
    fullName: '',
    email: viewer === undefined ? `${GHOST_USER_ID}+${name.toLowerCase()}@${noReplyAddress}` : '',
    loginName: '',
    sourceId: 0,
    language: '',
    isAdmin: false,
    lastLogin: EPOCH,
    created: EPOCH,
    restricted: false,
    active: false,
    prohibitLogin: false,
    location: '',
    website: '',
    description: '',
    visibility: 'public',
    mustChangePassword: false,
    maxRepoCreation: -1,
    allowGitHook: false,
    allowImportLocal: false,
    allowCreateOrganization: false,
    updated: EPOCH,
    type: 0,
    keepEmailPrivate: false,
    keepActivityPrivate: false,
    theme: '',
    diffViewStyle: '',
    emailNotificationsPreference: '',
  };
  return toApiUser(ghost, { rootUrl });
}

/**
 * Who may call each of accounts's RPCs (`@cairn/rpc` authorize.ts): the gateway for what the API serves, the CLI
 * for what it does, and the services that call them. `asAnyone` names the services that may call for a user no edge
 * asserted (from events, or as the system): every other caller may only act for the user the edge asserted.
 */
import type { Callers } from '@cairn/rpc';
import type { AccessTokenServiceService, UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { GpgKeyServiceService } from '@cairn/proto/cairn/accounts/v1/gpg_keys_service';
import type { OrgServiceService, TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';

export const ACCESS_TOKEN_CALLERS: Callers<typeof AccessTokenServiceService> = {
  createAccessToken: ['gateway'],
  listAccessTokens: ['gateway'],
  deleteAccessToken: ['gateway'],
  authenticateToken: ['gateway'],
};

export const GPG_KEY_CALLERS: Callers<typeof GpgKeyServiceService> = {
  listGpgKeys: { callers: ['gateway', 'git-storage'], asAnyone: ['git-storage'] },
  getGpgKey: ['gateway'],
  createGpgKey: ['gateway'],
  deleteGpgKey: ['gateway'],
  findVerificationKeys: { callers: ['git-storage'], asAnyone: ['git-storage'] },
};

export const ORG_CALLERS: Callers<typeof OrgServiceService> = {
  createOrg: ['gateway'],
  getOrg: { callers: ['gateway', 'repos'], asAnyone: ['repos'] },
  listOrgs: ['gateway'],
  listUserOrgs: ['gateway'],
  updateOrg: ['gateway'],
  deleteOrg: ['gateway'],
  renameOrg: ['gateway'],
  listMembers: ['gateway'],
  isMember: ['gateway'],
  removeMember: ['gateway'],
  setMemberPublic: ['gateway'],
  getOrgPermissions: ['gateway'],
};

export const TEAM_CALLERS: Callers<typeof TeamServiceService> = {
  createTeam: ['gateway'],
  getTeam: ['gateway', 'repos'],
  listTeams: { callers: ['gateway', 'repos', 'issues', 'notifications'], asAnyone: ['issues', 'repos', 'notifications'] },
  searchTeams: ['gateway'],
  updateTeam: ['gateway'],
  deleteTeam: ['gateway'],
  // notifications expands a team asked to review, and the teams that may accept a transfer, into their members (from events: for no asserted user).
  listTeamMembers: { callers: ['gateway', 'notifications'], asAnyone: ['notifications'] },
  getTeamMember: ['gateway'],
  addTeamMember: ['gateway'],
  removeTeamMember: ['gateway'],
  listUserTeams: ['repos', 'issues'],
  batchGetTeams: { callers: ['gateway', 'repos', 'hooks'], asAnyone: ['repos', 'hooks'] },
};

export const USER_CALLERS: Callers<typeof UserServiceService> = {
  createUser: ['gateway', 'cli'],
  // migrations finds an import's owner by `uid` for the actor the gateway asserted.
  getUser: { callers: ['gateway', 'repos', 'migrations'], asAnyone: ['repos'] },
  batchGetUsers: {
    callers: ['gateway', 'repos', 'issues', 'hooks', 'notifications', 'migrations'],
    asAnyone: ['repos', 'issues', 'hooks', 'notifications', 'migrations'],
  },
  // migrations maps a migrated item's authors to local users by e-mail (its import's task runner acts for no edge).
  batchGetUsersByEmail: { callers: ['gateway', 'issues', 'hooks', 'migrations'], asAnyone: ['issues', 'hooks', 'migrations'] },
  searchUsers: ['gateway'],
  // `cairn restore-repo` finds its doer, the first site admin (Gitea's GetAdminUser).
  listUsers: ['gateway', 'cli'],
  renameUser: ['gateway'],
  resolveName: ['gateway', 'repos', 'issues'],
  updateUser: ['gateway'],
  deleteUser: ['gateway'],
  authenticatePassword: ['gateway'],
};

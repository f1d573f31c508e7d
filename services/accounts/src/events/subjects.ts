/**
 * The events accounts publishes: its JetStream stream and subjects (a public interface, see
 * proto/cairn/accounts/v1/events.proto for the payloads).
 *
 * Deleting a user publishes only `cairn.user.deleted`; the user's tokens go with it without a
 * `cairn.access_token.deleted` each, so a token cache must drop a user's tokens on `cairn.user.deleted`.
 * Likewise `cairn.org.deleted` stands for the organization's teams and memberships, and
 * `cairn.org_member.removed` for the member's team memberships in that organization.
 */
export const ACCOUNTS_STREAM = 'CAIRN_ACCOUNTS';
export const ACCOUNTS_SUBJECTS: readonly string[] = [
  'cairn.user.>',
  'cairn.access_token.>',
  'cairn.org.>',
  'cairn.org_member.>',
  'cairn.team.>',
  'cairn.team_member.>',
];

export const Subject = {
  userCreated: 'cairn.user.created',
  userUpdated: 'cairn.user.updated',
  userDeleted: 'cairn.user.deleted',
  userRenamed: 'cairn.user.renamed',
  accessTokenCreated: 'cairn.access_token.created',
  accessTokenDeleted: 'cairn.access_token.deleted',
  orgCreated: 'cairn.org.created',
  orgUpdated: 'cairn.org.updated',
  orgRenamed: 'cairn.org.renamed',
  orgDeleted: 'cairn.org.deleted',
  orgMemberAdded: 'cairn.org_member.added',
  orgMemberUpdated: 'cairn.org_member.updated',
  orgMemberRemoved: 'cairn.org_member.removed',
  teamCreated: 'cairn.team.created',
  teamUpdated: 'cairn.team.updated',
  teamDeleted: 'cairn.team.deleted',
  teamMemberAdded: 'cairn.team_member.added',
  teamMemberRemoved: 'cairn.team_member.removed',
} as const;

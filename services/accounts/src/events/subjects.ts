/**
 * The events accounts publishes: its JetStream stream and subjects (a public interface, see
 * proto/cairn/accounts/v1/events.proto for the payloads).
 *
 * Deleting a user publishes only `cairn.user.deleted`; the user's tokens go with it without a
 * `cairn.access_token.deleted` each, so a token cache must drop a user's tokens on `cairn.user.deleted`.
 */
export const ACCOUNTS_STREAM = 'CAIRN_ACCOUNTS';
export const ACCOUNTS_SUBJECTS: readonly string[] = ['cairn.user.>', 'cairn.access_token.>'];

export const Subject = {
  userCreated: 'cairn.user.created',
  userUpdated: 'cairn.user.updated',
  userDeleted: 'cairn.user.deleted',
  accessTokenCreated: 'cairn.access_token.created',
  accessTokenDeleted: 'cairn.access_token.deleted',
} as const;

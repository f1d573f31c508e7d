/**
 * @cairn/gitea-json: Cairn's data as Gitea's API JSON (Gitea's services/convert), one module per object, shared by
 * the gateway's answers and the webhook payloads hooks builds, so both are the same JSON.
 */
export * from './services';
export * from './repo-access';
export * from './git-repository';
export * from './attachment';
export * from './branch';
export * from './comment';
export * from './commit-status';
export * from './commit';
export * from './contents';
export * from './ghost-user';
export * from './gpg-key';
export * from './issue';
export * from './label';
export * from './milestone';
export * from './notification';
export * from './org';
export * from './pull';
export * from './reaction';
export * from './release';
export * from './repository';
export * from './review';
export * from './tag-protection';
export * from './tag';
export * from './timeline';
export * from './token';
export * from './tracked-time';
export * from './user';
export * from './push-mirror';

/** What every accounts handler needs: the database, the settings it applies and the repos client. */
import type { CairnConfig, EmailNotificationsPreference } from '@cairn/config';
import type { Database } from '@cairn/db';
import type { RepoServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { AsyncClientOf } from '@cairn/rpc';
import type { PasswordCheckQueue } from '../domain/password-queue';
import type { SignInThrottleSettings } from '../domain/sign-in-throttle';
import type { Visibility } from '../domain/visibility';

export interface AccountsSettings {
  /** `[security] MIN_PASSWORD_LENGTH` */
  minPasswordLength: number;
  /** `[service] DEFAULT_USER_VISIBILITY`, for accounts created without one. */
  defaultUserVisibility: Visibility;
  /** `[service] DEFAULT_ALLOW_CREATE_ORGANIZATION` */
  defaultAllowCreateOrganization: boolean;
  /** `[admin] DEFAULT_EMAIL_NOTIFICATIONS`: a new user's e-mail notification preference. */
  defaultEmailNotifications: EmailNotificationsPreference;
  /** `[service] NO_REPLY_ADDRESS`: the domain of the placeholder e-mails shown instead of hidden ones. */
  noReplyAddress: string;
  /** `[service] DEFAULT_ORG_VISIBILITY`, for organizations created without one. */
  defaultOrgVisibility: Visibility;
  /** `[service] DEFAULT_ORG_MEMBER_VISIBLE`: whether a new membership starts public. */
  defaultOrgMemberVisible: boolean;
  /** `[security] LOGIN_*`: the limits on failed password sign-ins. */
  signInThrottle: SignInThrottleSettings;
}

export type ReposClient = AsyncClientOf<typeof RepoServiceService>;

export interface AccountsContext {
  db: Database;
  settings: AccountsSettings;
  /** repos: asked before an owner is deleted (its repositories), and deletes them on a purge. */
  repos: ReposClient;
  /** Bounds the password checks of sign-ins (`[security] PASSWORD_CHECK_CONCURRENCY`, `PASSWORD_CHECK_QUEUE`). */
  passwordChecks: PasswordCheckQueue;
}

export function settingsFromConfig(config: CairnConfig): AccountsSettings {
  return {
    minPasswordLength: config.security.minPasswordLength,
    defaultUserVisibility: config.service.defaultUserVisibility,
    defaultAllowCreateOrganization: config.service.defaultAllowCreateOrganization,
    defaultEmailNotifications: config.admin.defaultEmailNotifications,
    noReplyAddress: config.service.noReplyAddress,
    defaultOrgVisibility: config.service.defaultOrgVisibility,
    defaultOrgMemberVisible: config.service.defaultOrgMemberVisible,
    signInThrottle: {
      maxFailures: config.security.loginMaxFailures,
      maxAccountFailures: config.security.loginMaxAccountFailures,
      maxAddressFailures: config.security.loginMaxAddressFailures,
      windowSeconds: config.security.loginFailureWindowSeconds,
      blockSeconds: config.security.loginBlockSeconds,
      knownAddressSeconds: config.security.loginKnownAddressDays * 86_400,
    },
  };
}

/**
 * Gitea's EmailNotificationsPreference (models/user/user.go): which notification mails a user gets. Stored by
 * accounts; the notifications service's mail sender applies it (services/notifications/src/mail/preference.ts).
 */
import { EMAIL_NOTIFICATIONS_PREFERENCES, type EmailNotificationsPreference } from '@cairn/config';
import { emailNotificationsPreferenceInvalid } from './errors';

export function isEmailNotificationsPreference(value: string): value is EmailNotificationsPreference {
  return (EMAIL_NOTIFICATIONS_PREFERENCES as readonly string[]).includes(value);
}

/** `value` as a preference, or INVALID_ARGUMENT. */
export function assertEmailNotificationsPreference(value: string): EmailNotificationsPreference {
  if (!isEmailNotificationsPreference(value)) throw emailNotificationsPreferenceInvalid(value);
  return value;
}

/**
 * Whether a recipient's e-mail preference lets a mail through, by why they get it (mail/jobs.ts MailReason), as
 * Gitea's services/mailer/mail_issue.go mailIssueCommentToParticipants and mailIssueCommentBatch: `enabled` takes
 * every mail but those about the user's own actions, `onmention` only mentions, `disabled` none, `andyourown`
 * everything including their own actions. A pending transfer is mailed whatever the preference (Gitea's
 * SendRepoTransferNotifyMail does not look at it).
 */
import type { MailReason } from '../mail/jobs';

export type EmailPreference = 'enabled' | 'onmention' | 'disabled' | 'andyourown';

export function preferenceAllows(preference: string, reason: MailReason): boolean {
  if (reason === 'transfer') return true;
  switch (preference) {
    case 'andyourown':
      return true;
    case 'enabled':
      return reason !== 'own';
    case 'onmention':
      return reason === 'mention';
    default:
      // `disabled`, and anything accounts would never store.
      return false;
  }
}

/** Whether an account may be mailed at all: Gitea mails active users who may sign in, at a real address. */
export function mayReceiveMail(user: { active: boolean; prohibitLogin: boolean; email: string; type: number }): boolean {
  return user.type === 0 && user.active && !user.prohibitLogin && user.email !== '';
}

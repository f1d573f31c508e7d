/**
 * Who is told about a pending repository transfer (Gitea's models/activities/notification.go
 * CreateRepoTransferNotification and services/mailer/mail_repo.go SendRepoTransferNotifyMail): the new owner when
 * it is a user; for an organization, the users who may accept it — members of a team that may create repositories
 * in it, the Owners team included (Gitea's GetUsersWhoCanCreateOrgRepo; repos' canCreateInOrg decides acceptance
 * the same way). Never the doer (the issue's rule; Gitea would notify a doer who is one of them).
 */

/** A team as this rule needs it (accounts' Team). */
export interface TeamGrant {
  id: number;
  /** "none", "read", "write", "admin" or "owner". */
  permission: string;
  canCreateOrgRepo: boolean;
}

export function teamMayAcceptTransfer(team: TeamGrant): boolean {
  return team.canCreateOrgRepo || team.permission === 'owner';
}

/** The users to notify among `candidates`, each once, in id order, without the doer. */
export function transferNotifiees(candidates: readonly number[], doerId: number): number[] {
  return [...new Set(candidates)].filter((id) => id > 0 && id !== doerId).sort((a, b) => a - b);
}

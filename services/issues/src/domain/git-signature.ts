/**
 * Users as git records them (Gitea's User.NewGitSig and Signature.String) and the trailers Gitea's squash merge
 * adds when the squashed commit's author is not its committer (services/pull/merge_squash.go).
 */
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';

export interface GitIdentity {
  name: string;
  email: string;
}

/** Gitea's gitSafeName: no newline or angle bracket survives into a git signature. */
function gitSafeName(name: string): string {
  return name.replace(/[\n<>]/g, '').trim();
}

/** NewGitSig: the full name, else the login; the e-mail, else (kept private or none) `<login>@<NO_REPLY_ADDRESS>`. */
export function userGitIdentity(user: Pick<User, 'login' | 'fullName' | 'email' | 'keepEmailPrivate'>, noReplyAddress: string): GitIdentity {
  const name = gitSafeName(user.fullName) || gitSafeName(user.login);
  const email = user.keepEmailPrivate || user.email === '' ? `${user.login.toLowerCase()}@${noReplyAddress}` : user.email;
  return { name, email };
}

/** Signature.String(): `Name <email>`. */
export function identityText(identity: GitIdentity): string {
  return `${identity.name} <${identity.email}>`;
}

/**
 * doMergeStyleSquash's message: when the trailers are on and the author is not the committer, `Co-authored-by:` the
 * author (unless the message already says so) and `Co-committed-by:` the author, each on its own line.
 */
export function withCoAuthorTrailers(message: string, author: GitIdentity, committer: GitIdentity, enabled: boolean): string {
  const text = identityText(author);
  if (!enabled || identityText(committer) === text) return message;
  const coAuthored = `Co-authored-by: ${text}`;
  const withAuthor = message.includes(coAuthored) ? message : `${message}\n${coAuthored}`;
  return `${withAuthor}\nCo-committed-by: ${text}\n`;
}

/**
 * Who may react with what (Gitea's models/issues/reaction.go CreateReaction and routers/api/v1/repo/
 * issue_reaction.go): only the kinds `[ui] REACTIONS` lists, matched exactly, and on a locked issue only users who
 * may write its issues (or pull requests) — the caller says whether the user may, administrators included.
 */
import { CairnError } from '@cairn/rpc';

/** PERMISSION_DENIED (Gitea's 403) unless `content` is one of the allowed kinds. */
export function requireAllowedContent(allowed: readonly string[], content: string): string {
  if (!allowed.includes(content)) throw CairnError.denied(`'${content}' is not an allowed reaction`, { reason: 'reaction_not_allowed' });
  return content;
}

/** A locked issue's reactions (and its comments') change only for those who may write issues. */
export function requireMayChange(target: { issueLocked: boolean }, canWrite: boolean): void {
  if (target.issueLocked && !canWrite) throw CairnError.denied('no permission to change reaction', { reason: 'issue_locked' });
}

/** The name the reacting user goes by, as the caller knows it. */
export function requireUserName(name: string): string {
  if (name.trim() === '') throw CairnError.invalid('user name is required', { reason: 'user_name_invalid' });
  return name;
}

/**
 * Whether a contents-API write may touch its paths on a branch a protection rule covers (Gitea's
 * files_service.VerifyBranchProtection): a caller the rule does not let push may only change files its
 * unprotected patterns name, nobody may change files its protected patterns name, and a rule requiring signed
 * commits refuses the write outright (Cairn holds no signing key: Gitea's ErrUserCannotCommit).
 *
 * Patterns are `;`-separated globs matched against the lower-cased path, as Gitea compiles them (gobwas/glob with
 * `.` and `/` as separators: `*` and `?` stop at either, `**` does not).
 */
import { HttpError } from '@cairn/http';
import type { BranchProtectionMatch } from '@cairn/proto/cairn/repos/v1/repos_service';

/** The glob as a regular expression; undefined for one that does not compile (Gitea skips those). */
function globPattern(glob: string): RegExp | undefined {
  let pattern = '';
  let alternatives = 0;
  for (let i = 0; i < glob.length; i += 1) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      pattern += '.*';
      i += 1;
    } else if (c === '*') pattern += '[^./]*';
    else if (c === '?') pattern += '[^./]';
    else if (c === '{') {
      pattern += '(?:';
      alternatives += 1;
    } else if (c === '}' && alternatives > 0) {
      pattern += ')';
      alternatives -= 1;
    } else if (c === ',' && alternatives > 0) pattern += '|';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) pattern += '\\[';
      else {
        const body = glob.slice(i + 1, end);
        pattern += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
        i = end;
      }
    } else pattern += c.replace(/[.+^$(){}|\\/]/g, '\\$&');
  }
  if (alternatives > 0) return undefined;
  try {
    return new RegExp(`^${pattern}$`);
  } catch {
    return undefined;
  }
}

/** The rule's `;`-separated patterns, lower-cased (Gitea's GetProtectedFilePatterns). */
function patternsOf(text: string): RegExp[] {
  return text
    .split(';')
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part !== '')
    .flatMap((part) => globPattern(part) ?? []);
}

function matchesAny(patterns: readonly RegExp[], path: string): boolean {
  const lower = path.toLowerCase();
  return patterns.some((pattern) => pattern.test(lower));
}

export function cannotCommitMessage(login: string): string {
  return `user cannot commit to repo [user: ${login.toLowerCase()}]`;
}

/** Throws Gitea's 403 when the branch's rule refuses a write of `paths` by `login`. */
export function checkProtectedWrite(match: BranchProtectionMatch | undefined, paths: readonly string[], login: string): void {
  const rule = match?.protection;
  if (rule === undefined) return;
  const unprotected = patternsOf(rule.unprotectedFilePatterns);
  const protectedFiles = patternsOf(rule.protectedFilePatterns);
  for (const path of paths) {
    if (!match?.userCanPush && !matchesAny(unprotected, path)) throw HttpError.forbidden(cannotCommitMessage(login));
    if (matchesAny(protectedFiles, path)) throw HttpError.forbidden(`path is protected and can not be changed [path: ${path}]`);
  }
  if (rule.requireSignedCommits) throw HttpError.forbidden(cannotCommitMessage(login));
}

/**
 * Where a new pull request comes from and goes to (Gitea's parseCompareInfo and CreatePullRequest checks): the head
 * repository is the base repository or one in its fork network the viewer may read the code of, the branches are
 * named, differ when both are in one repository, and exist.
 */
import type { RepositoryWithPermission } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { Repository as GitRepository } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError, Code, actorOf } from '@cairn/rpc';
import type { IssuesContext } from '../rpc/context';
import { type Access, accessOf, canReadCode } from './permissions';

/** Git allows longer names; Gitea's branch names are at most 255 bytes (models/git/branch.go). */
const MAX_BRANCH_BYTES = 255;

export function requireBranchName(name: string, field: 'base' | 'head'): string {
  if (name === '' || Buffer.byteLength(name) > MAX_BRANCH_BYTES || name.includes('\u0000')) {
    throw CairnError.invalid(`${field} branch name is invalid`, { reason: 'invalid_branch_name' });
  }
  return name;
}

export function gitRepositoryOf(access: Access): GitRepository {
  return { storage: access.repository.storage, repoId: access.repository.id };
}

/**
 * The head repository's access: the base repository itself when `head` is unset or is the base; else a repository
 * of the same fork network (a fork of the base, the base's parent, or a sibling fork) whose code the viewer may
 * read. Anything else is NOT_FOUND, as Gitea answers.
 */
export function headAccessOf(access: Access, head: RepositoryWithPermission | undefined): Access {
  const base = access.repository;
  if (head?.repository === undefined || head.repository.id === base.id) return access;
  const headAccess = accessOf({ viewer: actorOf(access.viewer), repository: head });
  const related =
    headAccess.repository.parentId === base.id ||
    (base.parentId > 0 && (base.parentId === headAccess.repository.id || base.parentId === headAccess.repository.parentId));
  if (!related || !canReadCode(headAccess)) throw CairnError.notFound('head repository does not exist', { reason: 'head_repo_not_found' });
  return headAccess;
}

/** NOT_FOUND (reason branch_not_found) when `name` is not a branch of the repository. */
export async function requireBranch(context: Pick<IssuesContext, 'git'>, access: Access, name: string): Promise<void> {
  try {
    await context.git.refs.getBranch({ repository: gitRepositoryOf(access), name });
  } catch (error) {
    if (error instanceof CairnError && error.code === Code.NOT_FOUND) {
      throw CairnError.notFound(`branch does not exist [name: ${name}]`, { reason: 'branch_not_found' });
    }
    throw error;
  }
}

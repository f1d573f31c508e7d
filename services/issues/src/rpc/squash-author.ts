/**
 * A squash merge's author (Gitea's getAuthorSignatureSquash): the pull request's poster, named as the newest of the
 * pull request's commits whose author e-mail is their account's names them, else by their git identity (full name
 * or login; e-mail, or the no-reply address when it is private). A poster who no longer exists leaves the merger
 * as the author.
 */
import type { Commit, Signature } from '@cairn/proto/cairn/git/v1/git_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { type GitIdentity, userGitIdentity, withCoAuthorTrailers } from '../domain/git-signature';
import { gitRepositoryOfRepo, internalActor, pullHeadRef } from '../domain/pull-check';
import type { PullRow } from '../store/pulls';
import type { IssuesContext } from './context';

/** The pull request's commits read per page, and pages at most (newest first, as Gitea walks them). */
const COMMITS_PAGE = 100;
const COMMITS_PAGES = 10;

async function pullCommits(context: IssuesContext, base: Repository, pull: PullRow): Promise<Commit[]> {
  const commits: Commit[] = [];
  for (let page = 1; page <= COMMITS_PAGES; page += 1) {
    const answer = await context.git.merge.listCommitsBetween({
      repository: gitRepositoryOfRepo(base),
      base: `refs/heads/${pull.base_branch}`,
      head: pullHeadRef(pull.index),
      page: { page, limit: COMMITS_PAGE },
      withFiles: false,
      withVerification: false,
    });
    commits.push(...answer.commits);
    if (answer.commits.length < COMMITS_PAGE || commits.length >= answer.total) break;
  }
  return commits;
}

/** The squash commit's author; `merger` when the poster is gone. */
export async function squashAuthor(context: IssuesContext, base: Repository, pull: PullRow, posterId: number, merger: GitIdentity): Promise<GitIdentity> {
  const { users } = await context.users.batchGetUsers({ ids: [posterId], viewer: internalActor() });
  const poster = users.find((user) => user.id === posterId);
  if (poster === undefined) return merger;
  const authors = (await pullCommits(context, base, pull)).flatMap((commit) => (commit.author === undefined ? [] : [commit.author]));
  const emails = [...new Set(authors.map((author) => author.email).filter((email) => email !== ''))];
  if (emails.length > 0) {
    const { users: owners } = await context.users.batchGetUsersByEmail({ emails, viewer: internalActor() });
    const posterEmails = new Set(owners.filter((owner) => owner.user?.id === posterId).map((owner) => owner.email));
    const own = authors.find((author) => posterEmails.has(author.email));
    if (own !== undefined) return { name: own.name, email: own.email };
  }
  return userGitIdentity(poster, context.config.service.noReplyAddress);
}

export interface MergeAuthorFacts {
  base: Repository;
  pull: PullRow;
  /** The pull request's poster (its issue's). */
  posterId: number;
  style: string;
  /** The merger's signature: the committer of every style, and the author of all but squash. */
  merger: Signature;
  message: string;
}

/**
 * The Merge call's author and message: for a squash, the poster as author (dated now, as `git commit --author`)
 * and, per `[repository.pull-request] ADD_CO_COMMITTER_TRAILERS`, Gitea's trailers naming them; otherwise the merger
 * and the message as they are.
 */
export async function mergeAuthor(context: IssuesContext, facts: MergeAuthorFacts): Promise<{ author: Signature; message: string }> {
  if (facts.style !== 'squash') return { author: facts.merger, message: facts.message };
  const author = await squashAuthor(context, facts.base, facts.pull, facts.posterId, facts.merger);
  const trailers = context.config.repository.pullRequest.addCoCommitterTrailers;
  return {
    author: { ...facts.merger, name: author.name, email: author.email },
    message: withCoAuthorTrailers(facts.message, author, facts.merger, trailers),
  };
}

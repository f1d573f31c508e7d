/**
 * push, create and delete payloads from one cairn.git.pushed, per updated branch or tag, as Gitea's
 * services/repository/push.go `pushUpdates` notifies them and services/webhook/notifier.go builds them:
 * - a new branch: `create` (short name, ref_type branch) and `push` with its last commits (CommitsBeforeLimit(10));
 * - an updated branch: `push` with the commits it added (CommitsBeforeUntil(old));
 * - a deleted branch: `delete` only;
 * - a new tag: `create` and a `push` with no commits whose head_commit is the tag's commit (before = zero);
 * - a deleted tag: `delete` only.
 * `commits` keeps the newest setting.UI.FeedMaxCommitNum (5) of them; `total_commits` counts them all.
 */
import { type ApiPayloadCommit, type ApiRepository, type ApiUser, gitRepositoryOf, repoLinks, toPayloadCommit } from '@cairn/gitea-json';
import type { CreatePayload, DeletePayload, PushPayload } from '@cairn/events';
import type { Commit } from '@cairn/proto/cairn/git/v1/git_service';
import type { GitPushed, RefUpdate } from '@cairn/proto/cairn/git/v1/events';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { type PlannedPayload, memo } from './plan';
import { type PayloadServices, apiRepository, apiUsers, loadRepository, repositoryOf } from './services';

/** Gitea's `[ui] FEED_MAX_COMMIT_NUM` default: the commits a push payload lists. */
export const FEED_MAX_COMMIT_NUM = 5;
/** Gitea's CommitsBeforeLimit(10) for a new branch. */
const NEW_BRANCH_COMMITS = 10;

export const BRANCH_PREFIX = 'refs/heads/';
const TAG_PREFIX = 'refs/tags/';

export function isZeroSha(sha: string): boolean {
  return /^0+$/.test(sha);
}

/** The repository, its `repository` object and the pusher: read once per push, only when some hook wants a payload. */
interface PushScene {
  repository: Repository;
  apiRepository: ApiRepository;
  pusher: ApiUser;
}

/** Gitea's `repo.ComposeCompareURL(old, new)` under ROOT_URL. */
export function compareUrl(rootUrl: string, repository: Repository, before: string, after: string): string {
  const owner = encodeURIComponent(repository.ownerName);
  const name = encodeURIComponent(repository.name);
  return `${rootUrl}${owner}/${name}/compare/${encodeURIComponent(before)}...${encodeURIComponent(after)}`;
}

/**
 * ToAPIPayloadCommits: each commit with the files it added, removed and modified (Gitea's GetCommitFileStatus, which
 * reads renames as an addition and a removal) and its author's and committer's usernames by e-mail.
 */
export async function payloadCommits(services: PayloadServices, repository: Repository, commits: readonly Commit[]): Promise<ApiPayloadCommit[]> {
  const emails = [...new Set(commits.flatMap((commit) => [commit.author?.email ?? '', commit.committer?.email ?? '']).filter((email) => email !== ''))];
  const { users } = emails.length === 0 ? { users: [] } : await services.clients.users.batchGetUsersByEmail({ emails, viewer: undefined });
  const loginOf = new Map(users.map((found) => [found.email.toLowerCase(), found.user?.login ?? '']));
  const links = repoLinks(services.config.server.rootUrl, repository);
  return commits.map((commit) => {
    const converted = toPayloadCommit(commit, links);
    const added: string[] = [];
    const removed: string[] = [];
    const modified: string[] = [];
    for (const file of commit.files) {
      if (file.status === 'added' || file.status === 'copied') added.push(file.filename);
      else if (file.status === 'removed') removed.push(file.filename);
      else if (file.status === 'renamed') {
        added.push(file.filename);
        removed.push(file.previousFilename);
      } else modified.push(file.filename);
    }
    return {
      ...converted,
      author: { ...converted.author, username: loginOf.get(converted.author.email.toLowerCase()) ?? '' },
      committer: { ...converted.committer, username: loginOf.get(converted.committer.email.toLowerCase()) ?? '' },
      added,
      removed,
      modified,
    };
  });
}

/** The commits a branch update brought, newest first, with how many there are in all. */
async function pushedCommits(services: PayloadServices, repository: Repository, update: RefUpdate): Promise<{ commits: Commit[]; total: number }> {
  const git = gitRepositoryOf(repository);
  if (isZeroSha(update.oldSha)) {
    const listed = await services.clients.commits.listCommits({ repository: git, revision: update.newSha, path: '', page: 1, limit: NEW_BRANCH_COMMITS, withStats: true, withVerification: false });
    return { commits: listed.commits, total: listed.commits.length };
  }
  const listed = await services.clients.gitMerge.listCommitsBetween({
    repository: git,
    base: update.oldSha,
    head: update.newSha,
    page: { page: 1, limit: FEED_MAX_COMMIT_NUM },
    withFiles: true,
    withVerification: false,
  });
  return { commits: listed.commits, total: listed.total };
}

async function headCommit(services: PayloadServices, repository: Repository, sha: string, listed: readonly Commit[]): Promise<Commit> {
  const first = listed[0];
  if (first?.sha === sha) return first;
  const { commit } = await services.clients.commits.getCommit({ repository: gitRepositoryOf(repository), revision: sha, withStats: true, withVerification: false });
  if (commit === undefined) throw new Error(`git-storage answered no commit for ${sha}`);
  return commit;
}

/**
 * The payloads of one push, planned per ref; each is built only when a hook wants it. A pull mirror's sync (origin
 * "mirror") is delivered as a push by its pusher, the repository's owner (Gitea's SyncPushCommits, SyncCreateRef,
 * SyncDeleteRef); an import's git data (origin "migration") is none: Gitea notifies MigrateRepository instead.
 */
export function pushPlans(services: PayloadServices, event: GitPushed, eventId: string): PlannedPayload[] {
  if (event.origin === 'migration') return [];
  const scene = memo(async (): Promise<PushScene | undefined> => {
    const item = await loadRepository(services, event.repoId);
    if (item === undefined) return undefined;
    const [converted, user] = await Promise.all([apiRepository(services, item), apiUsers(services, [event.pusherId])]);
    return { repository: repositoryOf(item), apiRepository: converted, pusher: user(event.pusherId) };
  });
  const { rootUrl } = services.config.server;
  const plans: PlannedPayload[] = [];
  for (const update of event.refUpdates) {
    const isBranch = update.ref.startsWith(BRANCH_PREFIX);
    if (!isBranch && !update.ref.startsWith(TAG_PREFIX)) continue;
    const shortName = update.ref.slice(isBranch ? BRANCH_PREFIX.length : TAG_PREFIX.length);
    const branch = isBranch ? shortName : undefined;
    const refType = isBranch ? 'branch' : 'tag';
    // One push may update several refs: each ref's payloads are their own rows.
    const key = `${eventId}:${update.ref}`;
    if (isZeroSha(update.newSha)) {
      plans.push({
        key,
        eventType: 'delete',
        branch,
        build: async () => {
          const loaded = await scene();
          if (loaded === undefined) return undefined;
          return { payload: { ref: shortName, ref_type: refType, pusher_type: 'user', repository: loaded.apiRepository, sender: loaded.pusher } satisfies DeletePayload };
        },
      });
      continue;
    }
    if (isZeroSha(update.oldSha)) {
      plans.push({
        key,
        eventType: 'create',
        branch,
        build: async () => {
          const loaded = await scene();
          if (loaded === undefined) return undefined;
          return { payload: { sha: update.newSha, ref: shortName, ref_type: refType, repository: loaded.apiRepository, sender: loaded.pusher } satisfies CreatePayload };
        },
      });
    }
    plans.push({
      key,
      eventType: 'push',
      branch,
      build: async () => {
        const loaded = await scene();
        if (loaded === undefined) return undefined;
        const { repository } = loaded;
        const { commits, total } = isBranch ? await pushedCommits(services, repository, update) : { commits: [], total: 0 };
        const head = await headCommit(services, repository, update.newSha, commits);
        const [apiHead, ...apiCommits] = await payloadCommits(services, repository, [head, ...commits.slice(0, FEED_MAX_COMMIT_NUM)]);
        return {
          pushCommits: apiCommits.length,
          payload: {
            ref: update.ref,
            before: update.oldSha,
            after: update.newSha,
            compare_url: compareUrl(rootUrl, repository, update.oldSha, update.newSha),
            commits: apiCommits,
            total_commits: total,
            head_commit: apiHead,
            repository: loaded.apiRepository,
            pusher: loaded.pusher,
            sender: loaded.pusher,
          } satisfies PushPayload,
        };
      },
    });
  }
  return plans;
}

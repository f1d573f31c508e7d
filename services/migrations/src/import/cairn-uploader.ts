/**
 * The Cairn side of an item import (Gitea's services/migrations/gitea_uploader.go GiteaLocalUploader) for one
 * repository: each batch goes to the service that owns the items (issues, social, repos) through their ImportService
 * RPCs, which leave alone what is already there, so a resumed import may resend a batch. Authors are mapped to local
 * users by e-mail (Cairn's rule; Gitea maps by the external login of its known services): a source author whose
 * e-mail is a local user's becomes that user, any other is kept as an original author (name and source id) with the
 * importing user as the row's user, as Gitea's remapExternalUser. Where the source shows no e-mail (comment posters)
 * and for assignees and reactions (names only), a source name maps through the names learned from e-mail matches; an
 * unmatched assignee is dropped (Gitea drops unknown users), an unmatched reaction kept as an original author's.
 */
import type { Logger } from '@cairn/log';
import type { Comment, Issue, Label, Milestone, PullRequest, Reaction, Release, Review, Uploader } from '@cairn/migration';
import type { ImportedAuthor } from '@cairn/proto/cairn/issues/v1/import_service';
import type { ImportedReaction } from '@cairn/proto/cairn/social/v1/import_service';
import type { MigrationsClients } from '../rpc/context';
import { type AssetSource, importReleaseAssets } from './release-assets';
import { importPullGit, reviewValues } from './pull-heads';

export interface UploadTarget {
  repoId: number;
  /** The importing user: the row's user of every item whose author has no account here. */
  doerId: number;
  /** The source's service name ("gitea", "gogs"), shown with original authors' reactions. */
  service: string;
  /** Where pull requests' git data comes from (without it, pull requests are imported without heads or patches). */
  pullSource?: PullSource;
}

/** The source repository of pull requests' heads and patches (import/pull-heads.ts). */
export interface PullSource {
  /** The source's clone address and credentials (its refs/pull/<n>/head). */
  cloneAddr: string;
  auth: { username: string; password: string; token: string };
  /** `git.timeout.migrate` in seconds. */
  timeoutSeconds: number;
  /** The downloader's getPullPatch. */
  patch(pull: PullRequest): Promise<Buffer | undefined>;
}

/** Gitea's comment types the issues API lists as plain comments ("" from older sources). */
const PLAIN_COMMENT_TYPES = new Set(['', 'comment']);

interface LocalUser {
  id: number;
  login: string;
}

/** The uploader and the names it has matched so far, which the runner keeps with the task's progress. */
export interface CairnUploader extends Uploader {
  /** Source author names matched to local users by e-mail so far. */
  knownAuthors(): Record<string, LocalUser>;
}

interface SourceAuthor {
  id: number;
  name: string;
  email: string;
}

/**
 * `known`: the names an earlier claim of the same import matched (a resumed import no longer sees the issues that
 * taught them, yet their posters' later comments and reactions map the same way). `assets`: where release assets'
 * bytes come from (without it, releases are imported without their assets).
 */
export function createCairnUploader(
  clients: MigrationsClients,
  target: UploadTarget,
  log: Logger,
  known: Record<string, LocalUser> = {},
  assets?: AssetSource,
): CairnUploader {
  const { repoId, doerId } = target;
  /** Local users by lower-cased e-mail (null: no local user has it). */
  const byEmail = new Map<string, LocalUser | null>();
  /** Local users by source name, learned from e-mail matches. */
  const byName = new Map<string, LocalUser>(Object.entries(known));
  let doerName: string | undefined;

  const emailOf = (source: SourceAuthor): string => source.email.trim().toLowerCase();

  /** Looks the authors' e-mail addresses up in one batch (hidden or empty addresses match no one). */
  async function learn(authors: readonly SourceAuthor[]): Promise<void> {
    const emails = [...new Set(authors.map(emailOf))].filter((email) => email !== '' && !byEmail.has(email));
    if (emails.length > 0) {
      const { users } = await clients.users.batchGetUsersByEmail({ emails });
      for (const email of emails) byEmail.set(email, null);
      for (const found of users) if (found.user !== undefined) byEmail.set(found.email.toLowerCase(), { id: found.user.id, login: found.user.login });
    }
    for (const source of authors) {
      const local = byEmail.get(emailOf(source));
      if (local !== undefined && local !== null) byName.set(source.name, local);
    }
  }

  /**
   * A source author's local user: by e-mail, else by a name an e-mail match taught (Gitea's API shows comment posters
   * without their e-mail: convert.ToAPIComment shapes them for no viewer).
   */
  function author(source: SourceAuthor): ImportedAuthor {
    const local = byEmail.get(emailOf(source)) ?? byName.get(source.name);
    if (local !== undefined) return { userId: local.id, originalAuthor: '', originalAuthorId: 0 };
    return { userId: doerId, originalAuthor: source.name, originalAuthorId: source.id };
  }

  async function nameOfDoer(): Promise<string> {
    if (doerName === undefined) {
      const { users } = await clients.users.batchGetUsers({ ids: [doerId] });
      doerName = users[0]?.login ?? '';
    }
    return doerName;
  }

  async function reactionsOf(reactions: readonly Reaction[], issueId: number, commentId: number): Promise<ImportedReaction[]> {
    const out: ImportedReaction[] = [];
    for (const reaction of reactions) {
      const local = byName.get(reaction.userName);
      out.push(
        local !== undefined
          ? { issueId, commentId, userId: local.id, userName: local.login, content: reaction.content, originalAuthor: '', originalAuthorId: 0, originalService: '' }
          : {
              issueId,
              commentId,
              userId: doerId,
              userName: await nameOfDoer(),
              content: reaction.content,
              originalAuthor: reaction.userName,
              originalAuthorId: reaction.userId,
              originalService: target.service,
            },
      );
    }
    return out;
  }

  async function importReactions(reactions: ImportedReaction[]): Promise<void> {
    if (reactions.length > 0) await clients.reactionImports.importReactions({ repoId, reactions });
  }

  return {
    knownAuthors: () => Object.fromEntries(byName),

    async createTopics(topics: string[]): Promise<void> {
      if (topics.length === 0) return;
      await clients.topics.replaceTopics({ actor: { userId: doerId, isAdmin: true, isRestricted: false }, repoId, topics });
    },

    async createLabels(labels: Label[]): Promise<void> {
      if (labels.length === 0) return;
      await clients.issueImports.importLabels({ repoId, labels: labels.map((label) => ({ ...label })) });
    },

    async createMilestones(milestones: Milestone[]): Promise<void> {
      if (milestones.length === 0) return;
      await clients.issueImports.importMilestones({
        repoId,
        milestones: milestones.map((m) => ({
          title: m.title,
          description: m.description,
          deadline: m.deadline,
          created: m.created,
          updated: m.updated,
          closed: m.closed,
          isClosed: m.state === 'closed',
        })),
      });
    },

    async createReleases(releases: Release[]): Promise<void> {
      if (releases.length === 0) return;
      const publishers = releases.map((r) => ({ id: r.publisherId, name: r.publisherName, email: r.publisherEmail }));
      await learn(publishers);
      const answer = await clients.releaseImports.importReleases({
        repoId,
        releases: releases.map((r, i) => {
          const publisher = author(publishers[i]);
          return {
            tagName: r.tagName,
            target: r.targetCommitish,
            title: r.name,
            note: r.body,
            isDraft: r.draft,
            isPrerelease: r.prerelease,
            publisherId: publisher.userId,
            originalAuthor: publisher.originalAuthor,
            originalAuthorId: publisher.originalAuthorId,
            created: r.published,
          };
        }),
      });
      if (assets === undefined) return;
      // The assets' uploader is the release's publisher here (Gitea leaves migrated attachments without one).
      const uploaderOf = (release: Release): number => author({ id: release.publisherId, name: release.publisherName, email: release.publisherEmail }).userId;
      const done = await importReleaseAssets(clients, repoId, releases, answer.releases, uploaderOf, assets, log);
      if (done.imported + done.skipped > 0) log.info({ step: 'releases', assets: done.imported, skipped: done.skipped }, 'release assets imported');
    },

    async createIssues(issues: Issue[]): Promise<void> {
      if (issues.length === 0) return;
      await learn(issues.map((issue) => ({ id: issue.posterId, name: issue.posterName, email: issue.posterEmail })));
      const answer = await clients.issueImports.importIssues({
        repoId,
        issues: issues.map((issue) => ({
          index: issue.number,
          poster: author({ id: issue.posterId, name: issue.posterName, email: issue.posterEmail }),
          title: issue.title,
          body: issue.content,
          ref: issue.ref,
          isClosed: issue.state === 'closed',
          isLocked: issue.isLocked,
          created: issue.created,
          updated: issue.updated,
          closed: issue.closed,
          labels: issue.labels.map((label) => label.name),
          milestone: issue.milestone,
          assigneeIds: issue.assignees.flatMap((name) => byName.get(name)?.id ?? []),
        })),
      });
      const ids = new Map(answer.issues.map((row) => [row.index, row.id]));
      const reactions: ImportedReaction[] = [];
      for (const issue of issues) {
        const id = ids.get(issue.number);
        if (id !== undefined && id > 0) reactions.push(...(await reactionsOf(issue.reactions, id, 0)));
      }
      await importReactions(reactions);
    },

    async createComments(comments: Comment[]): Promise<void> {
      const plain = comments.filter((comment) => PLAIN_COMMENT_TYPES.has(comment.commentType));
      if (plain.length < comments.length) log.info({ step: 'comments', skipped: comments.length - plain.length }, 'comments of other types are not imported; skipped');
      if (plain.length === 0) return;
      await learn(plain.map((c) => ({ id: c.posterId, name: c.posterName, email: c.posterEmail })));
      const answer = await clients.issueImports.importComments({
        repoId,
        comments: plain.map((c) => ({
          issueIndex: c.issueIndex,
          sourceId: c.index,
          poster: author({ id: c.posterId, name: c.posterName, email: c.posterEmail }),
          body: c.content,
          created: c.created,
          updated: c.updated,
        })),
      });
      const ids = new Map(answer.comments.map((row) => [row.sourceId, row]));
      const reactions: ImportedReaction[] = [];
      for (const comment of plain) {
        const row = ids.get(comment.index);
        if (row !== undefined) reactions.push(...(await reactionsOf(comment.reactions, row.issueId, row.id)));
      }
      await importReactions(reactions);
    },

    async createPullRequests(pulls: PullRequest[]): Promise<void> {
      if (pulls.length === 0) return;
      const posters = pulls.map((pull) => ({ id: pull.posterId, name: pull.posterName, email: pull.posterEmail }));
      await learn(posters);
      // Gitea's newPullRequest: the git side first (patch, heads), then the rows.
      const heads = await importPullGit(clients, target, pulls, log);
      const answer = await clients.issueImports.importPullRequests({
        repoId,
        pulls: pulls.map((pull, i) => {
          const head = heads.get(pull.number);
          return {
            issue: {
              index: pull.number,
              poster: author(posters[i]),
              title: pull.title,
              body: pull.content,
              ref: '',
              isClosed: pull.state === 'closed',
              isLocked: pull.isLocked,
              created: pull.created,
              updated: pull.updated,
              closed: pull.closed,
              labels: pull.labels.map((label) => label.name),
              milestone: pull.milestone,
              assigneeIds: pull.assignees.flatMap((name) => byName.get(name)?.id ?? []),
            },
            baseBranch: pull.base.ref,
            headBranch: head?.headBranch ?? pull.head.ref,
            headCommitId: head?.headCommitId ?? '',
            mergeBase: head?.mergeBase ?? pull.mergeBase ?? pull.base.sha,
            merged: pull.merged,
            mergedAt: pull.mergedTime,
            mergeCommitId: pull.mergeCommitSha,
            // Gitea's uploader records the importing user as the merger.
            mergerId: doerId,
          };
        }),
      });
      const ids = new Map(answer.pulls.map((row) => [row.index, row.id]));
      const reactions: ImportedReaction[] = [];
      for (const pull of pulls) {
        const id = ids.get(pull.number);
        if (id !== undefined && id > 0) reactions.push(...(await reactionsOf(pull.reactions, id, 0)));
      }
      await importReactions(reactions);
    },

    async createReviews(reviews: Review[]): Promise<void> {
      if (reviews.length === 0) return;
      // The reviews API shows reviewers without their e-mail: they map by the names e-mail matches taught.
      await clients.issueImports.importReviews({
        repoId,
        reviews: reviews.map((review) => reviewValues(review, author({ id: review.reviewerId, name: review.reviewerName, email: '' }))),
      });
    },
  };
}

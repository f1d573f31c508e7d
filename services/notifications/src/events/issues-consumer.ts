/**
 * The `notifications-issues` consumer: issue, comment, pull-request and review events become notification threads
 * (and, while `[mailer] ENABLED`, mail jobs), as Gitea's services/uinotification and services/mailer do.
 *
 * Per event: what it notifies (domain/issue-notices.ts); the lists it needs, asked over gRPC before any
 * transaction, one call per kind (issues' GetIssueAudience, social's ListWatchers, accounts' ListTeamMembers per
 * requested team, repos' BatchGetUserPermissions per 100 users); who that makes (domain/recipients.ts); then one
 * `processOnce` transaction writes the threads (touchThreads) and the mail jobs with the event's id, so a
 * redelivered event changes nothing. Acknowledged after that commit; a failure throws and the bus redelivers.
 * Events of an issue or repository that is gone by then notify nobody.
 */
import { type Bus, type BusHandler, type BusMessage, type Subscription, processOnce } from '@cairn/bus';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { IssueCommentEvent, IssueEvent, PullRequestEvent, PullReviewEvent } from '@cairn/proto/cairn/issues/v1/events';
import type { IssueSubscriptionServiceService } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { CollaboratorServiceService, Permission, RepoServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { WatchServiceService } from '@cairn/proto/cairn/social/v1/social_service';
import { type AsyncClientOf, CairnError, Code } from '@cairn/rpc';
import { type IssueGone, type IssueNotice, commentEventNotice, issueEventNotice, pullEventNotice, reviewEventNotice } from '../domain/issue-notices';
import { type IssueAudience, NO_AUDIENCE, issueMailJobs, mayReadUnit, noticeRecipients, readableOnly, repoWatchersWanted, unitOf, usersToCheck } from '../domain/recipients';
import { queueMailJobs } from '../mail/jobs';
import { deleteIssueThreads } from '../store/thread-removals';
import { SubjectType, type ThreadTouch, touchThreads } from '../store/threads';
import { readEvent } from './read-event';
import { ISSUES_CONSUMER, ISSUES_FILTER, ISSUES_STREAM } from './issues-stream';

/** The calls the fan-out makes: the services' clients in production, fakes in tests. */
export interface FanOutClients {
  subscriptions: Pick<AsyncClientOf<typeof IssueSubscriptionServiceService>, 'getIssueAudience'>;
  watches: Pick<AsyncClientOf<typeof WatchServiceService>, 'listWatchers'>;
  teams: Pick<AsyncClientOf<typeof TeamServiceService>, 'listTeamMembers'>;
  collaborators: Pick<AsyncClientOf<typeof CollaboratorServiceService>, 'batchGetUserPermissions'>;
  repos: Pick<AsyncClientOf<typeof RepoServiceService>, 'batchGetRepositories'>;
}

export interface IssuesConsumerOptions {
  db: Database;
  bus: Bus;
  logger: Logger;
  clients: FanOutClients;
  /** `[mailer] ENABLED`: mail jobs are queued only while it is on (Gitea queues no mail when the mailer is off). */
  mailerEnabled: boolean;
  /** Called after a commit that queued mail (the mail sender's wake; it polls as well). */
  onMailQueued?: () => void;
  /** Durable name; tests give their own. */
  durable?: string;
}

/**
 * A site admin's view for the lists an event needs: the decision of who may read is each recipient's own permission,
 * asked of repos; this view only lets repos answer for a private repository. (hooks reads events the same way.)
 */
const INTERNAL_VIEWER: Actor = { userId: 1, isAdmin: true, isRestricted: false };

/** repos' BatchGetUserPermissions limit. */
const PERMISSION_BATCH = 100;
const PERMISSION_CALLS_AT_ONCE = 8;

export function startIssuesConsumer(options: IssuesConsumerOptions): Promise<Subscription> {
  const durable = options.durable ?? ISSUES_CONSUMER;
  return options.bus.consume({ stream: ISSUES_STREAM, durable, filterSubject: ISSUES_FILTER, handler: issuesEventHandler(options, durable) });
}

type Read = { notice: IssueNotice | IssueGone; eventId: string } | { problem: string } | undefined;

/** Each subject family's payload type and what its events notify. */
const FAMILIES: ReadonlyMap<string, (subject: string, message: BusMessage) => Read> = new Map([
  ['cairn.issue', (subject: string, message: BusMessage) => withNotice(readEvent(IssueEvent, message), (event) => issueEventNotice(subject, event))],
  ['cairn.issue_comment', (subject: string, message: BusMessage) => withNotice(readEvent(IssueCommentEvent, message), (event) => commentEventNotice(subject, event))],
  ['cairn.pull_request', (subject: string, message: BusMessage) => withNotice(readEvent(PullRequestEvent, message), (event) => pullEventNotice(subject, event))],
  ['cairn.pull_review', (subject: string, message: BusMessage) => withNotice(readEvent(PullReviewEvent, message), (event) => reviewEventNotice(subject, event))],
]);

/** The notice of a message; undefined for subjects that notify nobody (labels, milestones, …: not even decoded). */
function readNotice(message: BusMessage): Read {
  const { subject } = message;
  const family = FAMILIES.get(subject.slice(0, subject.lastIndexOf('.')));
  return family === undefined ? undefined : family(subject, message);
}

function withNotice<T>(read: { event: T; eventId: string } | { problem: string }, toNotice: (event: T) => IssueNotice | IssueGone | undefined): Read {
  if ('problem' in read) return read;
  const notice = toNotice(read.event);
  return notice === undefined ? undefined : { notice, eventId: read.eventId };
}

function isNotFound(error: unknown): boolean {
  return error instanceof CairnError && error.code === Code.NOT_FOUND;
}

/** The issue's subscribers, unsubscribers, participants and (when wanted) the repository's watchers; undefined: the issue is gone. */
async function audienceOf(clients: FanOutClients, notice: IssueNotice): Promise<IssueAudience | undefined> {
  if (!notice.toAudience) return NO_AUDIENCE;
  const [issue, watchers] = await Promise.all([
    clients.subscriptions.getIssueAudience({ issueId: notice.issue.id }).catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    }),
    repoWatchersWanted(notice) ? clients.watches.listWatchers({ repoId: notice.issue.repoId }) : Promise.resolve({ userIds: [] as number[] }),
  ]);
  if (issue === undefined) return undefined;
  return { watcherIds: issue.watcherIds, unwatcherIds: issue.unwatcherIds, participantIds: issue.participantIds, repoWatcherIds: watchers.userIds };
}

/** The members of the teams asked to review (a team deleted meanwhile has none). */
async function teamMembersOf(clients: FanOutClients, teamIds: readonly number[]): Promise<number[]> {
  const members = await Promise.all(
    teamIds.map((teamId) =>
      clients.teams.listTeamMembers({ viewer: INTERNAL_VIEWER, teamId }).then(
        (response) => response.users.map((user) => user.id),
        (error: unknown) => {
          if (isNotFound(error)) return [];
          throw error;
        },
      ),
    ),
  );
  return [...new Set(members.flat())];
}

/** Each user's permission in the repository (unknown users left out); undefined: the repository is gone. */
async function permissionsOf(clients: FanOutClients, repoId: number, userIds: readonly number[]): Promise<Map<number, Permission> | undefined> {
  const batches: number[][] = [];
  for (let start = 0; start < userIds.length; start += PERMISSION_BATCH) batches.push(userIds.slice(start, start + PERMISSION_BATCH));
  try {
    const permissions = new Map<number, Permission>();
    // A few batches at a time: a popular repository's watchers must not open hundreds of calls at once.
    for (let wave = 0; wave < batches.length; wave += PERMISSION_CALLS_AT_ONCE) {
      const answers = await Promise.all(
        batches.slice(wave, wave + PERMISSION_CALLS_AT_ONCE).map((ids) => clients.collaborators.batchGetUserPermissions({ viewer: INTERNAL_VIEWER, repoId, userIds: ids })),
      );
      for (const answer of answers) for (const { userId, permission } of answer.permissions) if (permission !== undefined) permissions.set(userId, permission);
    }
    return permissions;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** `owner/name` of the repository now, for the mail (undefined: gone). */
async function repoFullNameOf(clients: FanOutClients, repoId: number): Promise<string | undefined> {
  const { repositories } = await clients.repos.batchGetRepositories({ viewer: INTERNAL_VIEWER, ids: [repoId] });
  const repository = repositories[0]?.repository;
  return repository === undefined ? undefined : `${repository.ownerName}/${repository.name}`;
}

/** The thread of each recipient (created unread, or bumped). */
export function threadTouches(notice: IssueNotice, recipients: Iterable<number>): ThreadTouch[] {
  const { issue } = notice;
  return [...recipients].map((userId) => ({
    userId,
    repoId: issue.repoId,
    subjectType: issue.isPull ? SubjectType.pull : SubjectType.issue,
    issueId: issue.id,
    issueIndex: issue.index,
    commitId: '',
    commentId: notice.commentId,
    updatedBy: notice.actorId,
  }));
}

/** Handles one notice; answers how many threads were written (0 when nobody is told). */
export async function fanOutNotice(options: Omit<IssuesConsumerOptions, 'bus'>, consumer: string, eventId: string, notice: IssueNotice): Promise<number> {
  const { clients, db } = options;
  const withMail = options.mailerEnabled && notice.mail !== undefined;
  const [audience, teamMemberIds, repoFullName] = await Promise.all([
    audienceOf(clients, notice),
    teamMembersOf(clients, notice.reviewerTeamIds),
    withMail ? repoFullNameOf(clients, notice.issue.repoId) : Promise.resolve(''),
  ]);
  if (audience === undefined || repoFullName === undefined) return 0;
  const permissions = await permissionsOf(clients, notice.issue.repoId, usersToCheck(notice, audience, teamMemberIds, withMail));
  if (permissions === undefined) return 0;
  const threads = readableOnly(noticeRecipients(notice, audience, teamMemberIds, false), permissions, notice.issue.isPull);
  const mails = withMail
    ? issueMailJobs(
        eventId,
        notice,
        readableOnly(noticeRecipients(notice, audience, teamMemberIds, true), permissions, notice.issue.isPull),
        mayReadUnit(permissions.get(notice.actorId), unitOf(notice.issue.isPull)),
        repoFullName,
      )
    : [];
  if (threads.size === 0 && mails.length === 0) return 0;
  let written = 0;
  await processOnce(db, consumer, eventId, async (tx) => {
    written = await touchThreads(tx, threadTouches(notice, threads.keys()));
    await queueMailJobs(tx, mails);
  });
  if (mails.length > 0) options.onMailQueued?.();
  return written;
}

/** The consumer's handler (exported for tests that hand it messages directly). */
export function issuesEventHandler(options: Omit<IssuesConsumerOptions, 'bus'>, consumer: string = ISSUES_CONSUMER): BusHandler {
  return async (message) => {
    const read = readNotice(message);
    if (read === undefined) return;
    if ('problem' in read) {
      options.logger.error({ subject: message.subject, event_id: message.id, problem: read.problem }, 'dropping an unreadable issues event');
      return;
    }
    const { notice, eventId } = read;
    if (notice.kind === 'issue_deleted') {
      await processOnce(options.db, consumer, eventId, async (tx) => void (await deleteIssueThreads(tx, notice.issueId)));
      return;
    }
    await fanOutNotice(options, consumer, eventId, notice);
  };
}

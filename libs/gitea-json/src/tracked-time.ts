/**
 * issues' TrackedTime and Stopwatch → Gitea's `TrackedTime` and `StopWatch` JSON (services/convert/issue.go
 * `ToTrackedTime`, `ToStopWatches`). A time carries its issue as Gitea's `Issue` (one BatchGetIssues for the whole
 * list, converted by issue.ts) and its user's name (one BatchGetUsers; a deleted user is Gitea's Ghost).
 * A stopwatch's `seconds` and `duration` are the time it has run until now, as Gitea computes them per request.
 */
import { goTime } from '@cairn/http';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Issue, Stopwatch, TrackedTime } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { ConvertServices, ConvertWith } from './services';
import { type ApiIssue, toApiIssues } from './issue';

/** Gitea's `api.TrackedTime`, keys in its order. */
export interface ApiTrackedTime {
  id: number;
  created: string;
  time: number;
  user_id: number;
  user_name: string;
  issue_id: number;
  issue: ApiIssue | null;
}

/** Gitea's `api.StopWatch`, keys in its order. */
export interface ApiStopWatch {
  created: string;
  seconds: number;
  duration: string;
  issue_index: number;
  issue_title: string;
  repo_owner_name: string;
  repo_name: string;
}

/** The name Gitea's NewGhostUser gives a deleted user. */
const GHOST_NAME = 'Ghost';

function formatUnit(value: number, name: string): string {
  if (value === 1) return `1 ${name} `;
  return value > 1 ? `${value} ${name}s ` : '';
}

/**
 * Gitea's util.SecToHours: hours and minutes ("1 hour 2 minutes"), seconds only under a minute ("5 seconds"), ""
 * for none.
 */
export function secondsToHours(seconds: number): string {
  const text = formatUnit(Math.trunc(seconds / 3600), 'hour') + formatUnit(Math.trunc(seconds / 60) % 60, 'minute');
  return (text === '' && seconds > 0 ? formatUnit(seconds, 'second') : text).trimEnd();
}

/**
 * Times of the given repositories (every time's `repoId` must be in `repositories`), in the order given. A time whose
 * issue is gone (it went with its issue in the meantime) shows `issue: null`, as Gitea does.
 */
export async function toApiTrackedTimes(
  services: ConvertWith<'users' | 'issues' | 'attachments'> & Pick<ConvertServices, 'publicUsers'>,
  viewer: Actor | undefined,
  times: readonly TrackedTime[],
  repositories: ReadonlyMap<number, Repository>,
): Promise<ApiTrackedTime[]> {
  if (times.length === 0) return [];
  const issueIds = [...new Set(times.map((time) => time.issueId))];
  const userIds = [...new Set(times.map((time) => time.userId))];
  const [{ issues }, { users }] = await Promise.all([
    services.clients.issues.batchGetIssues({ ids: issueIds }),
    services.clients.users.batchGetUsers({ ids: userIds, viewer }),
  ]);
  const shown: Issue[] = issues.filter((issue) => repositories.has(issue.repoId));
  const apiIssues = await toApiIssues(services, viewer, shown, repositories);
  const issueById = new Map(apiIssues.map((issue, at) => [shown[at].id, issue]));
  const nameById = new Map(users.map((user) => [user.id, user.login]));
  return times.map((time) => ({
    id: time.id,
    created: goTime(time.created),
    time: time.time,
    user_id: time.userId,
    user_name: nameById.get(time.userId) ?? GHOST_NAME,
    issue_id: time.issueId,
    issue: issueById.get(time.issueId) ?? null,
  }));
}

/** Running stopwatches of the given repositories (others are left out), their run time counted up to `now`. */
export function toApiStopWatches(stopwatches: readonly Stopwatch[], repositories: ReadonlyMap<number, Repository>, now: Date): ApiStopWatch[] {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  return stopwatches.flatMap((stopwatch) => {
    const repository = repositories.get(stopwatch.repoId);
    if (repository === undefined) return [];
    const seconds = Math.max(0, nowSeconds - Math.floor((stopwatch.created?.getTime() ?? now.getTime()) / 1000));
    return [
      {
        created: goTime(stopwatch.created),
        seconds,
        duration: secondsToHours(seconds),
        issue_index: stopwatch.issueIndex,
        issue_title: stopwatch.issueTitle,
        repo_owner_name: repository.ownerName,
        repo_name: repository.name,
      },
    ];
  });
}

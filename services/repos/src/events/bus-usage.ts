import type { BusUsage } from '@cairn/bus';
import {
  ACCOUNTS_CONSUMER,
  ACCOUNTS_FILTER,
  ACCOUNTS_STREAM,
  GIT_CONSUMER,
  GIT_STREAM,
  GitSubject,
  COMMENT_ATTACHMENTS_CONSUMER,
  ISSUE_ATTACHMENTS_CONSUMER,
  ISSUES_STREAM,
  IssuesSubject,
  REPOS_STREAM,
  REPOS_SUBJECTS,
} from './subjects';

/**
 * repos on the bus (see @cairn/bus usage.ts): its own stream; owners' changes from accounts, pushes from git-storage,
 * deleted issues and comments (their attachments) from issues.
 */
export const BUS_USAGE: BusUsage = {
  service: 'repos',
  owns: [{ name: REPOS_STREAM, subjects: REPOS_SUBJECTS }],
  consumers: [
    { stream: ACCOUNTS_STREAM, durable: ACCOUNTS_CONSUMER, filterSubject: ACCOUNTS_FILTER },
    { stream: GIT_STREAM, durable: GIT_CONSUMER, filterSubject: GitSubject.pushed },
    { stream: ISSUES_STREAM, durable: ISSUE_ATTACHMENTS_CONSUMER, filterSubject: IssuesSubject.issueDeleted },
    { stream: ISSUES_STREAM, durable: COMMENT_ATTACHMENTS_CONSUMER, filterSubject: IssuesSubject.commentDeleted },
  ],
  broadcasts: [],
};

/**
 * The streams hooks consumes (their producers define them; hooks only binds) and its durable consumers, one per
 * stream: replicas sharing a durable share its messages (JetStream's queue semantics), so each event is turned into
 * deliveries once.
 */
export const GIT_STREAM = 'CAIRN_GIT';
export const ISSUES_STREAM = 'CAIRN_ISSUES';
export const REPOS_STREAM = 'CAIRN_REPOS';

/** cairn.git.pushed: push, create and delete payloads. */
export const GIT_CONSUMER = 'hooks-git';
export const GIT_FILTER = 'cairn.git.pushed';
/** Issues, comments, pull requests and reviews: issues, issue_comment, pull_request* payloads. */
export const ISSUES_CONSUMER = 'hooks-issues';
export const ISSUES_FILTER = 'cairn.>';
/** Repositories, forks, releases and commit statuses: repository, fork, release and status payloads. */
export const REPOS_CONSUMER = 'hooks-repos';
export const REPOS_FILTER = 'cairn.>';

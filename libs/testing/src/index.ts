/**
 * @cairn/testing: helpers every package's tests share. Each test file gets its own database (or schema,
 * stream, consumer…) with a random suffix and drops it at the end, so files run in parallel and leave
 * nothing behind.
 */
export { testDatabaseUrl, createTestDatabase, type TestDatabase } from './database';
export { testNatsUrl } from './nats';
export { uniqueName } from './names';
export { eventually } from './eventually';
export { loadGiteaApi, readStatusAllowances, type GiteaApi, type ResponseToCheck, type StatusAllowance } from './gitea-api';
export { createGpgKeyring, type GpgKeyring, type GpgKeyListing, type GpgPrimaryKeyListing } from './gpg';
export { startTestS3Server, type TestS3Server } from './s3rver';
export { type CgiHead, cgiBodyOffset, gitHttpBackend, parseCgiHead } from './git-cgi';
export {
  GITLAB_OAUTH_TOKEN,
  GITLAB_PAGE_SIZE,
  GITLAB_TOKEN,
  type GitlabFixture,
  type GitlabFixtureOptions,
  type GitlabFixtureRequest,
  startGitlabFixture,
} from './gitlab-fixture';
export { GITHUB_OWNER, GITHUB_REPO, type GithubFixture, type GithubFixtureOptions, type GithubFixtureRequest, type GithubRateLimit, startGithubFixture } from './github-fixture';

/**
 * In-memory stand-ins for the services payloads are built from (accounts, repos, social, issues, git-storage):
 * only the methods hooks calls, answering from the maps the test fills, and counting the calls so a test can see a
 * payload was built once.
 */
import { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { Commit } from '@cairn/proto/cairn/git/v1/git_service';
import type { PullRequest } from '@cairn/proto/cairn/issues/v1/pulls_service';
import { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { HooksClients } from '../src/rpc/context';

export interface FakeWorld {
  users: Map<number, User>;
  repositories: Map<number, Repository>;
  /** Commits by sha; `history` lists each head's commits newest first (the commits before it). */
  commits: Map<string, Commit>;
  history: Map<string, string[]>;
  pulls: Map<string, PullRequest>;
  /** RPC name → calls. */
  calls: Map<string, number>;
}

export function fakeWorld(): FakeWorld {
  return { users: new Map(), repositories: new Map(), commits: new Map(), history: new Map(), pulls: new Map(), calls: new Map() };
}

export function addUser(world: FakeWorld, id: number, login: string): User {
  const user = User.fromPartial({ id, login, email: `${login}@example.com`, fullName: login, created: new Date('2026-01-01T00:00:00Z'), active: true });
  world.users.set(id, user);
  return user;
}

/** The units a repository has unless a test says otherwise. */
const DEFAULT_UNITS = ['repo.code', 'repo.issues', 'repo.pulls', 'repo.releases'];

export function addRepository(
  world: FakeWorld,
  fields: { id: number; ownerId: number; ownerName: string; name: string; private?: boolean; ownerType?: number; ownerVisibility?: string; units?: string[] },
): Repository {
  const { units = DEFAULT_UNITS, ownerVisibility = 'public', ...rest } = fields;
  const repository = Repository.fromPartial({
    ...rest,
    ownerVisibility,
    units: units.map((key) => ({ key })),
    defaultBranch: 'main',
    storage: 'default',
    created: new Date('2026-01-01T00:00:00Z'),
    updated: new Date('2026-01-01T00:00:00Z'),
  });
  world.repositories.set(fields.id, repository);
  return repository;
}

/** A chain of commits `shas` (oldest first), each the parent of the next. */
export function addHistory(world: FakeWorld, shas: readonly string[]): void {
  shas.forEach((sha, index) => {
    const when = new Date(Date.UTC(2026, 0, 1, 0, index));
    world.commits.set(
      sha,
      Commit.fromPartial({
        sha,
        parentShas: index === 0 ? [] : [shas[index - 1]],
        author: { name: 'Alice', email: 'alice@example.com', when },
        committer: { name: 'Alice', email: 'alice@example.com', when },
        message: `commit ${index}\n`,
        files: [{ filename: `file${index}.txt`, status: index === 0 ? 'added' : 'modified' }],
      }),
    );
    world.history.set(sha, shas.slice(0, index + 1).reverse());
  });
}

function count(world: FakeWorld, name: string): void {
  world.calls.set(name, (world.calls.get(name) ?? 0) + 1);
}

export function fakeClients(world: FakeWorld): HooksClients {
  const ownerPermission = { accessMode: 'owner', units: { 'repo.code': 'owner', 'repo.issues': 'owner', 'repo.pulls': 'owner' } };
  const clients = {
    users: {
      batchGetUsers: async (request: { ids: number[] }) => {
        count(world, 'batchGetUsers');
        return { users: request.ids.flatMap((id) => (world.users.has(id) ? [world.users.get(id)!] : [])) };
      },
      batchGetUsersByEmail: async (request: { emails: string[] }) => {
        count(world, 'batchGetUsersByEmail');
        const users = [...world.users.values()];
        return { users: request.emails.flatMap((email) => users.filter((user) => user.email === email).map((user) => ({ email, user }))) };
      },
    },
    teams: { batchGetTeams: async () => ({ teams: [] }) },
    repos: {
      batchGetRepositories: async (request: { ids: number[]; viewer?: { userId: number } }) => {
        const anonymous = request.viewer === undefined || request.viewer.userId === 0;
        count(world, anonymous ? 'batchGetRepositories(anonymous)' : 'batchGetRepositories');
        return {
          repositories: request.ids.flatMap((id) => {
            const repository = world.repositories.get(id);
            if (repository === undefined) return [];
            if (!anonymous) return [{ repository, permission: ownerPermission }];
            // repos' rule for a caller with no viewer (services/repos domain/access.ts decidePermission).
            if (repository.private || repository.ownerVisibility !== 'public') return [];
            return [{ repository, permission: { accessMode: 'read', units: Object.fromEntries(repository.units.map((unit) => [unit.key, 'read'])) } }];
          }),
        };
      },
    },
    attachments: { batchListAttachments: async () => ({ attachments: [] }) },
    stars: { getRepoCounters: async () => ({ counters: [] }) },
    issues: { getRepoIssueCounters: async () => ({ counters: [] }) },
    pulls: {
      getPull: async (request: { scope?: { repository?: { repository?: Repository } }; index: number }) => {
        count(world, 'getPull');
        return { pull: world.pulls.get(`${request.scope?.repository?.repository?.id}:${request.index}`) };
      },
    },
    reviews: { listReviews: async () => ({ reviews: [], total: 0 }) },
    commits: {
      listCommits: async (request: { revision: string; limit: number }) => {
        count(world, 'listCommits');
        const shas = (world.history.get(request.revision) ?? []).slice(0, request.limit);
        return { commits: shas.map((sha) => world.commits.get(sha)!), total: shas.length };
      },
      getCommit: async (request: { revision: string }) => {
        count(world, 'getCommit');
        const sha = world.commits.has(request.revision) ? request.revision : world.history.get(request.revision)?.[0];
        return { commit: sha === undefined ? undefined : world.commits.get(sha) };
      },
    },
    refs: { getBranch: async () => ({ branch: undefined }) },
    gitMerge: {
      listCommitsBetween: async (request: { base: string; head: string; page?: { limit: number } }) => {
        count(world, 'listCommitsBetween');
        const before = new Set(world.history.get(request.base) ?? []);
        const added = (world.history.get(request.head) ?? []).filter((sha) => !before.has(sha));
        return { commits: added.slice(0, request.page?.limit ?? added.length).map((sha) => world.commits.get(sha)!), total: added.length };
      },
      listChangedFiles: async () => ({ files: [], total: 0, additions: 0, deletions: 0 }),
    },
  };
  // Only what hooks calls is here; the rest of each client is never reached in these tests.
  return clients as unknown as HooksClients;
}

import { HttpError } from '@cairn/http';
import type { Permission, Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { PUBLIC_ONLY_REPO_MESSAGE, REPO_ADMIN_MESSAGE, REPO_OWNER_MESSAGE, REPO_WRITE_MESSAGE, checkRepoRequirement, repoNameOf } from './repo-context';
import type { RepoRequirement } from './types';

function repo(fields: Partial<Repository> = {}): Repository {
  return { ownerName: 'alice', name: 'demo', private: false, archived: false, units: [{ key: 'repo.code' }, { key: 'repo.issues' }], ...fields } as Repository;
}

function perm(accessMode: string, units: Record<string, string> = { 'repo.code': accessMode, 'repo.issues': accessMode }): Permission {
  return { accessMode, units };
}

/** The HttpError `checkRepoRequirement` throws, or undefined when it passes. */
function outcome(requirement: RepoRequirement, permission: Permission, fields: Partial<Repository> = {}, publicOnly = false): HttpError | undefined {
  try {
    checkRepoRequirement(requirement, { repository: repo(fields), permission }, publicOnly);
    return undefined;
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
}

describe('repoNameOf', () => {
  it('drops a .git suffix in any case and keeps other names', () => {
    expect(repoNameOf('demo.git')).toBe('demo');
    expect(repoNameOf('demo.GIT')).toBe('demo');
    expect(repoNameOf('demo.gitx')).toBe('demo.gitx');
    expect(repoNameOf('demo')).toBe('demo');
  });
});

describe('checkRepoRequirement', () => {
  it('lets a reader read', () => {
    expect(outcome({ mode: 'read' }, perm('read'))).toBeUndefined();
    expect(outcome({ unit: 'repo.code', mode: 'read' }, perm('read'))).toBeUndefined();
  });

  it('answers 404 for a unit that is not enabled, even to an owner, and for one the caller may not read', () => {
    const error = outcome({ unit: 'repo.wiki', mode: 'read' }, perm('owner', { 'repo.wiki': 'owner' }));
    expect(error?.status).toBe(404);
    expect(error?.body('http://h/')).toEqual({ errors: null, message: 'not found', url: 'http://h/api/swagger' });
    expect(outcome({ unit: 'repo.issues', mode: 'read' }, perm('read', { 'repo.code': 'read', 'repo.issues': 'none' }))?.status).toBe(404);
    expect(outcome({ unit: 'repo.issues', mode: 'write' }, perm('read', { 'repo.code': 'read' }))?.status).toBe(404);
  });

  it("answers 403 with the message of Gitea's guard for each level", () => {
    expect(outcome({ mode: 'write' }, perm('read'))).toMatchObject({ status: 403, message: REPO_WRITE_MESSAGE });
    expect(outcome({ mode: 'admin' }, perm('write'))).toMatchObject({ status: 403, message: REPO_ADMIN_MESSAGE });
    expect(outcome({ mode: 'owner' }, perm('admin'))).toMatchObject({ status: 403, message: REPO_OWNER_MESSAGE });
    expect(outcome({ mode: 'owner' }, perm('owner'))).toBeUndefined();
  });

  it('lets a unit write through with write on that unit, or as a repository admin', () => {
    expect(outcome({ unit: 'repo.code', mode: 'write' }, perm('read', { 'repo.code': 'write' }))).toBeUndefined();
    expect(outcome({ unit: 'repo.code', mode: 'write' }, perm('write', { 'repo.code': 'read' }))).toMatchObject({ status: 403 });
    expect(outcome({ unit: 'repo.code', mode: 'write' }, perm('admin', { 'repo.code': 'read' }))).toBeUndefined();
  });

  it('refuses writes to an archived repository with 423 only where the route says so, after the access check', () => {
    expect(outcome({ mode: 'write', archived: 'refuse' }, perm('write'), { archived: true })).toMatchObject({
      status: 423,
      message: 'alice/demo is archived',
    });
    expect(outcome({ mode: 'write', archived: 'refuse' }, perm('read'), { archived: true })).toMatchObject({ status: 403 });
    expect(outcome({ mode: 'admin' }, perm('admin'), { archived: true })).toBeUndefined();
    expect(outcome({ mode: 'write', archived: 'refuse' }, perm('write'))).toBeUndefined();
  });

  it('refuses a token limited to public resources on a private repository, or one of a private or limited owner', () => {
    expect(outcome({ mode: 'read' }, perm('owner'), { private: true, ownerVisibility: 'public' }, true)).toMatchObject({ status: 403, message: PUBLIC_ONLY_REPO_MESSAGE });
    expect(outcome({ mode: 'read' }, perm('owner'), { private: false, ownerVisibility: 'private' }, true)).toMatchObject({ status: 403 });
    expect(outcome({ mode: 'read' }, perm('owner'), { private: false, ownerVisibility: 'limited' }, true)).toMatchObject({ status: 403 });
    expect(outcome({ mode: 'read' }, perm('owner'), { private: false, ownerVisibility: 'public' }, true)).toBeUndefined();
    expect(outcome({ mode: 'read' }, perm('owner'), { private: true, ownerVisibility: 'private' }, false)).toBeUndefined();
  });
});

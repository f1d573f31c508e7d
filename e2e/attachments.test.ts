/**
 * Attachments end to end, on the built supervisor, through the validating client (every /api/v1 body checked
 * against Gitea's description): release assets uploaded as multipart or as a raw body (`?name=` naming or renaming
 * them), listed, got, renamed (201; a forbidden type 422) and deleted (bytes gone); refusals that store nothing
 * (a forbidden type 400, over `[attachment] MAX_SIZE` 413); downloads through `browser_download_url` (anonymous on a
 * public repository, counted, 404 for strangers on a private one); issue and comment attachments (Gitea's
 * poster and writer rules); `/settings/attachment`; and a repository deletion removing its attachments' bytes.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { ApiResponse } from './support/client';
import { type Fixture, startFixture } from './support/fixture';
import { waitFor } from './support/instance';

jest.setTimeout(180_000);

interface ApiAttachment {
  id: number;
  name: string;
  size: number;
  download_count: number;
  uuid: string;
  browser_download_url: string;
}

describe('attachments', () => {
  let f: Fixture;
  let alice: Record<string, string>;
  let bob: Record<string, string>;
  let releaseId: number;
  let privateReleaseId: number;

  const call = <T = unknown>(method: string, apiPath: string, headers?: Record<string, string>, body?: unknown): Promise<ApiResponse<T>> =>
    f.api.request<T>(method, `/api/v1${apiPath}`, { headers, body });
  /**
   * The files in the attachments' directory, by name (objects are at Gitea's `<u>/<u>/<uuid>`; none before the first
   * upload makes it); a partial upload counts too.
   */
  const stored = () => {
    const directory = path.join(f.workDir, 'attachments');
    if (!existsSync(directory)) return [];
    return readdirSync(directory, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name)
      .sort();
  };
  const form = (name: string, bytes: Uint8Array | string) => {
    const data = new FormData();
    data.append('attachment', new Blob([bytes]), name);
    return data;
  };
  const raw = (type = 'application/octet-stream') => ({ 'content-type': type });
  /** The download, as a browser would fetch `browser_download_url` (outside the API). */
  const download = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers, redirect: 'manual' });

  beforeAll(async () => {
    // Release assets may be anything unless `[repository.release] ALLOWED_TYPES` says otherwise (as Gitea): restricted
    // here so that refusals can be shown; issue attachments keep `[attachment]`'s default list.
    f = await startFixture('e2e_attachments', ['alice', 'bob'], {
      CAIRN__attachment__MAX_SIZE: '1',
      CAIRN__repository_0X2E_release__ALLOWED_TYPES: '.txt,.zip,image/*',
    });
    alice = f.as('alice');
    bob = f.as('bob');
    for (const [name, isPrivate] of [
      ['app', false],
      ['secret', true],
    ] as const) {
      expect((await call('POST', '/user/repos', alice, { name, auto_init: true, private: isPrivate })).status).toBe(201);
    }
    const release = await call<{ id: number }>('POST', '/repos/alice/app/releases', alice, { tag_name: 'v1', name: 'one' });
    expect(release.status).toBe(201);
    releaseId = release.body.id;
    const secret = await call<{ id: number }>('POST', '/repos/alice/secret/releases', alice, { tag_name: 'v1' });
    expect(secret.status).toBe(201);
    privateReleaseId = secret.body.id;
  });

  afterAll(async () => {
    await f?.stop();
  });

  const assets = (repo = 'app', id = releaseId) => `/repos/alice/${repo}/releases/${id}/assets`;

  it('reports the configured limits at /settings/attachment', async () => {
    const settings = await call('GET', '/settings/attachment');
    expect(settings.body).toEqual({ enabled: true, allowed_types: expect.stringContaining('.zip'), max_size: 1, max_files: 5 });
  });

  it('uploads release assets as multipart (the name overridable) and as a raw body, lists, gets, renames and deletes them', async () => {
    const before = stored();
    const multipart = await call<ApiAttachment>('POST', assets(), alice, form('notes.txt', 'release notes\n'));
    expect(multipart.status).toBe(201);
    expect(multipart.body).toMatchObject({ name: 'notes.txt', size: 14, download_count: 0 });
    expect(new URL(multipart.body.browser_download_url).pathname).toBe(`/attachments/${multipart.body.uuid}`);

    const renamedOnUpload = await call<ApiAttachment>('POST', `${assets()}?name=changes.txt`, alice, form('notes.txt', 'changes\n'));
    expect(renamedOnUpload.body).toMatchObject({ name: 'changes.txt', size: 8 });

    const bytes = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 0, 255]);
    const rawUpload = await call<ApiAttachment>('POST', `${assets()}?name=app.zip`, { ...alice, ...raw() }, bytes);
    expect(rawUpload.status).toBe(201);
    expect(rawUpload.body).toMatchObject({ name: 'app.zip', size: 10 });
    const noName = await call('POST', assets(), { ...alice, ...raw() }, bytes);
    expect(noName.status).toBe(400);
    expect(stored()).toEqual([...before, multipart.body.uuid, renamedOnUpload.body.uuid, rawUpload.body.uuid].sort());

    const listed = await call<ApiAttachment[]>('GET', assets());
    expect(listed.body.map((asset) => asset.name)).toEqual(['notes.txt', 'changes.txt', 'app.zip']);
    expect((await call<ApiAttachment>('GET', `${assets()}/${rawUpload.body.id}`)).body).toMatchObject({ id: rawUpload.body.id, name: 'app.zip' });

    const renamed = await call<ApiAttachment>('PATCH', `${assets()}/${multipart.body.id}`, alice, { name: 'NOTES.txt' });
    expect(renamed.status).toBe(201);
    expect(renamed.body.name).toBe('NOTES.txt');
    const forbiddenRename = await call<{ message: string }>('PATCH', `${assets()}/${multipart.body.id}`, alice, { name: 'notes.exe' });
    expect(forbiddenRename.status).toBe(422);
    expect(forbiddenRename.body.message).toContain('not allowed');

    // Readers may not change them.
    expect((await call('POST', assets(), bob, form('x.txt', 'x'))).status).toBe(403);
    expect((await call('DELETE', `${assets()}/${multipart.body.id}`, bob)).status).toBe(403);

    expect((await call('DELETE', `${assets()}/${multipart.body.id}`, alice)).status).toBe(204);
    expect((await call('GET', `${assets()}/${multipart.body.id}`)).status).toBe(404);
    expect(stored()).not.toContain(multipart.body.uuid);
  });

  it('stores nothing for a forbidden type (400) or an upload over MAX_SIZE (413)', async () => {
    const before = stored();
    const forbidden = await call<{ message: string }>('POST', assets(), alice, form('tool.exe', 'MZ\x90\x00'));
    expect(forbidden.status).toBe(400);
    expect(forbidden.body.message).toContain('This file extension or type is not allowed to be uploaded');
    // The list has no `.html` entry, and the sniffed text/html is no allowed type either.
    const page = await call('POST', `${assets()}?name=page.html`, { ...alice, ...raw('text/html') }, new TextEncoder().encode('<html><script>x</script>'));
    expect(page.status).toBe(400);
    const tooBig = new Uint8Array(1024 * 1024 + 10).fill(0x61);
    const multipartTooBig = await call('POST', assets(), alice, form('big.txt', tooBig));
    expect(multipartTooBig.status).toBe(413);
    const rawTooBig = await call('POST', `${assets()}?name=big.zip`, { ...alice, ...raw() }, tooBig);
    expect(rawTooBig.status).toBe(413);
    expect(stored()).toEqual(before);
    // The connection and the instance are fine afterwards.
    expect((await call('GET', assets())).status).toBe(200);
  });

  it('downloads through browser_download_url, anonymously on a public repository, counting each download', async () => {
    const content = 'downloadable <b>text</b>\n';
    const uploaded = await call<ApiAttachment>('POST', assets(), alice, form('readme.txt', content));
    const anonymous = await download(uploaded.body.browser_download_url);
    expect(anonymous.status).toBe(200);
    expect(await anonymous.text()).toBe(content);
    expect(anonymous.headers.get('content-length')).toBe(String(Buffer.byteLength(content)));
    expect(anonymous.headers.get('content-disposition')).toContain('attachment; filename="readme.txt"');
    expect(anonymous.headers.get('x-content-type-options')).toBe('nosniff');
    expect(anonymous.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect((await download(uploaded.body.browser_download_url, bob)).status).toBe(200);
    // HEAD says what a download would be, without counting one.
    const head = await fetch(uploaded.body.browser_download_url, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length')]).toEqual([200, String(Buffer.byteLength(content))]);
    expect((await call<ApiAttachment>('GET', `${assets()}/${uploaded.body.id}`)).body.download_count).toBe(2);
    expect((await download(`${f.instance.httpUrl}/attachments/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
  });

  it('refuses a private repository’s downloads to strangers (404) and serves them to its owner', async () => {
    const uploaded = await call<ApiAttachment>('POST', assets('secret', privateReleaseId), alice, form('secret.txt', 'hush'));
    expect(uploaded.status).toBe(201);
    expect((await download(uploaded.body.browser_download_url)).status).toBe(404);
    expect((await download(uploaded.body.browser_download_url, bob)).status).toBe(404);
    expect((await call('GET', assets('secret', privateReleaseId), bob)).status).toBe(404);
    const own = await download(uploaded.body.browser_download_url, alice);
    expect(own.status).toBe(200);
    expect(await own.text()).toBe('hush');
  });

  it('lets an issue’s poster and writers attach files to it, and a comment’s poster only when they write issues (as Gitea)', async () => {
    const issue = await call<{ number: number }>('POST', '/repos/alice/app/issues', alice, { title: 'crash' });
    expect(issue.status).toBe(201);
    const issueAssets = `/repos/alice/app/issues/${issue.body.number}/assets`;
    const comment = await call<{ id: number }>('POST', `/repos/alice/app/issues/${issue.body.number}/comments`, bob, { body: 'same here' });
    expect(comment.status).toBe(201);
    const commentAssets = `/repos/alice/app/issues/comments/${comment.body.id}/assets`;

    // `[attachment] ALLOWED_TYPES`' default list has no `.exe`.
    expect((await call('POST', issueAssets, alice, form('tool.exe', 'MZ\x90\x00'))).status).toBe(400);
    const onIssue = await call<ApiAttachment>('POST', issueAssets, alice, form('log.txt', 'stack trace'));
    expect(onIssue.status).toBe(201);
    const refused = await call<{ message: string }>('POST', issueAssets, bob, form('log2.txt', 'more'));
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('user should have permission to write issue');
    expect((await call('PATCH', `${issueAssets}/${onIssue.body.id}`, bob, { name: 'mine.txt' })).status).toBe(403);
    // bob, a mere reader, may attach to an issue he posted…
    const own = await call<{ number: number }>('POST', '/repos/alice/app/issues', bob, { title: 'mine' });
    expect((await call('POST', `/repos/alice/app/issues/${own.body.number}/assets`, bob, form('mine.txt', 'mine'))).status).toBe(201);
    // …but not to his comment: Gitea's canUserWriteIssueCommentAttachment also wants write on issues.
    const onOwnComment = await call<{ message: string }>('POST', commentAssets, bob, form('screen.txt', 'what I see'));
    expect(onOwnComment.status).toBe(403);
    expect(onOwnComment.body.message).toBe('user should have permission to edit comment');

    // alice administers her repository, root the site: both may attach to bob's comment.
    const onComment = await call<ApiAttachment>('POST', commentAssets, alice, form('screen.txt', 'what I see'));
    expect(onComment.status).toBe(201);
    expect((await call('POST', commentAssets, f.root, form('admin.txt', 'admins may'))).status).toBe(201);
    expect((await call<ApiAttachment>('PATCH', `${commentAssets}/${onComment.body.id}`, alice, { name: 'screen-1.txt' })).status).toBe(201);
    expect((await call('DELETE', `${commentAssets}/${onComment.body.id}`, bob)).status).toBe(403);

    expect((await call<ApiAttachment[]>('GET', issueAssets)).body.map((a) => a.name)).toEqual(['log.txt']);
    expect((await call<ApiAttachment[]>('GET', commentAssets, bob)).body.map((a) => a.name)).toEqual(['screen-1.txt', 'admin.txt']);
    // An attachment is only found under its own parent.
    expect((await call('GET', `${issueAssets}/${onComment.body.id}`)).status).toBe(404);
    expect((await call('GET', '/repos/alice/app/issues/999/assets')).status).toBe(404);
    const fetched = await download(onComment.body.browser_download_url);
    expect(await fetched.text()).toBe('what I see');
    // The issue and its comments show their attachments as `assets`.
    const shown = await call<{ assets: ApiAttachment[] }>('GET', `/repos/alice/app/issues/${issue.body.number}`);
    expect(shown.body.assets.map((a) => a.uuid)).toEqual([onIssue.body.uuid]);
    const comments = await call<Array<{ id: number; assets: ApiAttachment[] }>>('GET', `/repos/alice/app/issues/${issue.body.number}/comments`);
    expect(comments.body.find((one) => one.id === comment.body.id)?.assets.map((a) => a.name)).toEqual(['screen-1.txt', 'admin.txt']);
    expect((await call('DELETE', `${commentAssets}/${onComment.body.id}`, alice)).status).toBe(204);
    expect(stored()).not.toContain(onComment.body.uuid);
  });

  it('removes a deleted issue’s attachments, its comments’ included, and a deleted release’s assets', async () => {
    const issue = await call<{ number: number }>('POST', '/repos/alice/app/issues', alice, { title: 'to delete' });
    const comment = await call<{ id: number }>('POST', `/repos/alice/app/issues/${issue.body.number}/comments`, alice, { body: 'with a file' });
    const onIssue = await call<ApiAttachment>('POST', `/repos/alice/app/issues/${issue.body.number}/assets`, alice, form('a.txt', 'a'));
    const onComment = await call<ApiAttachment>('POST', `/repos/alice/app/issues/comments/${comment.body.id}/assets`, alice, form('b.txt', 'b'));
    expect([onIssue.status, onComment.status]).toEqual([201, 201]);
    expect((await call('DELETE', `/repos/alice/app/issues/${issue.body.number}`, alice)).status).toBe(204);
    // repos learns of the deletion from issues' event.
    await waitFor('the deleted issue’s attachments to go', () => (stored().some((uuid) => [onIssue.body.uuid, onComment.body.uuid].includes(uuid)) ? undefined : true));
    expect((await download(onIssue.body.browser_download_url)).status).toBe(404);

    const release = await call<{ id: number }>('POST', '/repos/alice/app/releases', alice, { tag_name: 'v-gone' });
    const asset = await call<ApiAttachment>('POST', assets('app', release.body.id), alice, form('c.txt', 'c'));
    expect(stored()).toContain(asset.body.uuid);
    expect((await call('DELETE', `/repos/alice/app/releases/${release.body.id}`, alice)).status).toBe(204);
    expect(stored()).not.toContain(asset.body.uuid);
  });

  it('removes a repository’s attachments’ bytes when the repository is deleted', async () => {
    const ours = (await call<ApiAttachment[]>('GET', assets())).body.map((asset) => asset.uuid);
    expect(ours.length).toBeGreaterThan(0);
    for (const uuid of ours) expect(stored()).toContain(uuid);
    expect((await call('DELETE', '/repos/alice/app', alice)).status).toBe(204);
    const left = stored();
    for (const uuid of ours) expect(left).not.toContain(uuid);
    // The private repository's stay.
    expect((await call<ApiAttachment[]>('GET', assets('secret', privateReleaseId), alice)).body.map((a) => a.uuid).every((uuid) => left.includes(uuid))).toBe(true);
  });
});

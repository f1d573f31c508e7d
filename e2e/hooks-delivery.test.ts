/**
 * Webhook delivery end to end, on the built supervisor with `[webhook] ALLOWED_HOST_LIST = loopback` and a real
 * receiver on loopback: a repository hook gets Gitea's payloads (push with its commits, create, delete, issues,
 * issue_comment, pull_request incl. a merge as `closed` + `merged`, release, status) with Gitea's headers and
 * signatures; the branch filter and inactive hooks hold back what they should; organization, user and system hooks
 * fire for the repositories they cover and never for others (a private repository's events stay with its owner's
 * hooks); default hooks are copied into new repositories. Users in payloads are as an anonymous viewer sees them, in
 * the delivery and in the public event stream's message of the same payload (hooks' outbox, the same delivery id).
 */
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { serviceEnvOverrides } from '@cairn/config';
import { Client } from 'pg';
import type { ApiResponse } from './support/client';
import { type Fixture, USER_PASSWORD, startFixture } from './support/fixture';
import { type HookReceiver, type ReceivedDelivery, giteaSignature, startHookReceiver } from './support/hook-receiver';
import { gitTestEnv } from './support/instance';

jest.setTimeout(180_000);

const SECRET = 'hook-secret-1';

type Payload = Record<string, unknown> & {
  action?: string;
  ref?: string;
  ref_type?: string;
  before?: string;
  after?: string;
  commits?: { id: string; message: string }[];
  total_commits?: number;
  repository?: { full_name: string; private: boolean };
  sender?: { login: string };
  pusher?: { login: string };
  issue?: { number: number; title: string };
  comment?: { body: string };
  pull_request?: { number: number; merged: boolean };
  release?: { tag_name: string };
};

const payloadOf = (delivery: ReceivedDelivery): Payload => JSON.parse(delivery.body) as Payload;
const eventType = (type: string) => (delivery: ReceivedDelivery) => delivery.headers['x-gitea-event-type'] === type;

describe('webhook delivery', () => {
  let fixture: Fixture;
  let receiver: HookReceiver;
  let alice: Record<string, string>;
  let bob: Record<string, string>;
  let scratch: string;

  function call<T = unknown>(method: string, route: string, headers?: Record<string, string>, body?: unknown): Promise<ApiResponse<T>> {
    return fixture.api.request<T>(method, `/api/v1${route}`, { headers, body });
  }
  async function ok<T = unknown>(status: number, method: string, route: string, headers?: Record<string, string>, body?: unknown): Promise<T> {
    const answer = await call<T>(method, route, headers, body);
    if (answer.status !== status) throw new Error(`${method} ${route}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  }
  const hook = (receiverPath: string, extra: Record<string, unknown> = {}) => ({
    type: 'gitea',
    config: { url: `${receiver.url}${receiverPath}`, content_type: 'json', secret: SECRET },
    events: ['push', 'create', 'delete', 'issues', 'issue_comment', 'pull_request', 'release', 'repository', 'fork', 'status'],
    active: true,
    ...extra,
  });
  const git = (args: string[], cwd: string) => promisify(execFile)('git', args, { cwd, env: gitTestEnv(scratch) });

  beforeAll(async () => {
    receiver = await startHookReceiver();
    fixture = await startFixture('e2e_hooks_delivery', ['alice', 'bob'], serviceEnvOverrides({ webhook: { ALLOWED_HOST_LIST: 'loopback' } }));
    alice = fixture.as('alice');
    bob = fixture.as('bob');
    scratch = mkdtempSync(path.join(tmpdir(), 'cairn-hooks-'));
    await ok(201, 'POST', '/user/repos', alice, { name: 'app', auto_init: true });
    await ok(201, 'POST', '/repos/alice/app/hooks', alice, hook('/repo'));
    await ok(201, 'POST', '/repos/alice/app/hooks', alice, hook('/filtered', { branch_filter: 'release/*' }));
    await ok(201, 'POST', '/repos/alice/app/hooks', alice, hook('/inactive', { active: false }));
    await ok(201, 'POST', '/user/hooks', bob, hook('/bob-user'));
    await ok(201, 'POST', '/admin/hooks', fixture.root, hook('/system', { config: { url: `${receiver.url}/system`, content_type: 'json', is_system_webhook: 'true' } }));
  });

  afterAll(async () => {
    await fixture?.stop();
    await receiver?.close();
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });

  it('delivers a push with its commits, Gitea\'s headers and signatures', async () => {
    const remote = new URL('/alice/app.git', fixture.instance.httpUrl);
    remote.username = 'alice';
    remote.password = USER_PASSWORD;
    await git(['clone', '--quiet', remote.toString(), 'work'], scratch);
    const work = path.join(scratch, 'work');
    writeFileSync(path.join(work, 'a.txt'), 'a\n');
    await git(['add', '.'], work);
    await git(['commit', '--quiet', '-m', 'first change'], work);
    writeFileSync(path.join(work, 'b.txt'), 'b\n');
    await git(['add', '.'], work);
    await git(['commit', '--quiet', '-m', 'second change'], work);
    await git(['push', '--quiet', 'origin', 'main'], work);
    const head = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();

    const delivery = await receiver.waitFor('/repo', (received) => eventType('push')(received) && payloadOf(received).after === head);
    const id = delivery.headers['x-gitea-delivery'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(delivery.headers).toMatchObject({
      'content-type': 'application/json',
      'x-gitea-event': 'push',
      'x-gitea-event-type': 'push',
      'x-gogs-event': 'push',
      'x-github-event': 'push',
      'x-gogs-delivery': id,
      'x-github-delivery': id,
      'x-gitea-hook-installation-target-type': 'repository',
      'x-gitea-signature': giteaSignature(SECRET, delivery.body),
      'x-gogs-signature': giteaSignature(SECRET, delivery.body),
      'x-hub-signature-256': `sha256=${giteaSignature(SECRET, delivery.body)}`,
      'x-hub-signature': `sha1=${createHmac('sha1', SECRET).update(delivery.body).digest('hex')}`,
    });
    const payload = payloadOf(delivery);
    expect(payload).toMatchObject({ ref: 'refs/heads/main', after: head, total_commits: 2, repository: { full_name: 'alice/app', private: false }, pusher: { login: 'alice' }, sender: { login: 'alice' } });
    // Newest first, as Gitea's PushCommits (git log order) are.
    expect(payload.commits?.map((commit) => commit.message.trim())).toEqual(['second change', 'first change']);
    expect(Object.keys(payload)).toEqual(expect.arrayContaining(['compare_url', 'head_commit', 'before']));
    // The system hook sees every repository; bob's user hook does not see alice's.
    await receiver.waitFor('/system', (received) => eventType('push')(received) && payloadOf(received).after === head);
  });

  it('delivers create and delete of a branch, and holds back what the branch filter leaves out', async () => {
    const work = path.join(scratch, 'work');
    await git(['push', '--quiet', 'origin', 'main:refs/heads/release/one', 'main:refs/heads/feature'], work);
    const created = await receiver.waitFor('/repo', (received) => eventType('create')(received) && payloadOf(received).ref === 'feature');
    expect(payloadOf(created)).toMatchObject({ ref: 'feature', ref_type: 'branch', repository: { full_name: 'alice/app' } });
    await receiver.waitFor('/filtered', (received) => eventType('create')(received) && payloadOf(received).ref === 'release/one');
    await git(['push', '--quiet', 'origin', ':refs/heads/feature'], work);
    const deleted = await receiver.waitFor('/repo', (received) => eventType('delete')(received) && payloadOf(received).ref === 'feature');
    expect(payloadOf(deleted)).toMatchObject({ ref: 'feature', ref_type: 'branch', pusher_type: 'user' });
    // By now every delivery of those pushes to the filtered hook has arrived (they are made together).
    expect(receiver.received.filter((received) => received.path === '/filtered').map((received) => payloadOf(received).ref)).not.toContain('feature');
  });

  it('delivers issues, comments, pull requests (a merge as closed + merged), releases and statuses', async () => {
    const issue = await ok<{ number: number }>(201, 'POST', '/repos/alice/app/issues', alice, { title: 'Hooked issue', body: 'b' });
    const opened = await receiver.waitFor('/repo', (received) => eventType('issues')(received) && payloadOf(received).issue?.number === issue.number);
    expect(payloadOf(opened)).toMatchObject({ action: 'opened', number: issue.number, issue: { title: 'Hooked issue' }, sender: { login: 'alice' } });

    const label = await ok<{ id: number }>(201, 'POST', '/repos/alice/app/labels', alice, { name: 'bug', color: '#ee0701' });
    await ok(200, 'POST', `/repos/alice/app/issues/${issue.number}/labels`, alice, { labels: [label.id] });
    const labelled = await receiver.waitFor('/repo', eventType('issue_label'));
    expect(labelled.headers['x-gitea-event']).toBe('issues');
    expect(payloadOf(labelled)).toMatchObject({ action: 'label_updated', issue: { number: issue.number } });

    await ok(201, 'POST', `/repos/alice/app/issues/${issue.number}/comments`, alice, { body: 'a comment' });
    const comment = await receiver.waitFor('/repo', eventType('issue_comment'));
    expect(payloadOf(comment)).toMatchObject({ action: 'created', comment: { body: 'a comment' }, issue: { number: issue.number }, is_pull: false });
    expect(comment.headers['x-gitea-event']).toBe('issue_comment');

    await ok(201, 'POST', '/repos/alice/app/branches', alice, { new_branch_name: 'topic' });
    await ok(201, 'POST', '/repos/alice/app/contents/topic.txt', alice, { content: Buffer.from('topic\n').toString('base64'), branch: 'topic' });
    const pull = await ok<{ number: number }>(201, 'POST', '/repos/alice/app/pulls', alice, { title: 'Topic', head: 'topic', base: 'main' });
    const pullOpened = await receiver.waitFor('/repo', (received) => eventType('pull_request')(received) && payloadOf(received).action === 'opened');
    expect(payloadOf(pullOpened)).toMatchObject({ number: pull.number, pull_request: { number: pull.number, merged: false } });
    await ok(200, 'POST', `/repos/alice/app/pulls/${pull.number}/reviews`, alice, { event: 'COMMENT', body: 'looks fine' });
    const review = await receiver.waitFor('/repo', eventType('pull_request_review_comment'));
    expect(review.headers['x-gitea-event']).toBe('pull_request_comment');
    expect(payloadOf(review)).toMatchObject({ action: 'reviewed', number: pull.number, review: { type: 'pull_request_review_comment', content: 'looks fine' } });
    await ok(200, 'POST', `/repos/alice/app/pulls/${pull.number}/merge`, alice, { do: 'merge' });
    const merged = await receiver.waitFor('/repo', (received) => eventType('pull_request')(received) && payloadOf(received).action === 'closed');
    expect(payloadOf(merged)).toMatchObject({ number: pull.number, pull_request: { merged: true } });

    await ok(201, 'POST', '/repos/alice/app/releases', alice, { tag_name: 'v1.0.0', name: 'One' });
    const release = await receiver.waitFor('/repo', eventType('release'));
    expect(payloadOf(release)).toMatchObject({ action: 'published', release: { tag_name: 'v1.0.0' }, repository: { full_name: 'alice/app' } });

    const sha = (await ok<{ commit: { id: string } }>(200, 'GET', '/repos/alice/app/branches/main', alice)).commit.id;
    await ok(201, 'POST', `/repos/alice/app/statuses/${sha}`, alice, { state: 'success', context: 'ci', target_url: 'https://ci.example.com/1' });
    const status = await receiver.waitFor('/repo', eventType('status'));
    expect(payloadOf(status)).toMatchObject({ sha, state: 'success', context: 'ci' });
  });

  it('keeps a private repository\'s events with its owner\'s hooks, and fires user hooks for their own repositories', async () => {
    await ok(201, 'POST', '/user/repos', alice, { name: 'secret', private: true, auto_init: false });
    await ok(201, 'POST', '/repos/alice/secret/issues', alice, { title: 'Private matter' });
    await ok(201, 'POST', '/user/repos', bob, { name: 'bobs', auto_init: false });
    await ok(201, 'POST', '/repos/bob/bobs/issues', bob, { title: 'Bob matter' });
    const bobs = await receiver.waitFor('/bob-user', (received) => eventType('issues')(received) && payloadOf(received).issue?.title === 'Bob matter');
    expect(payloadOf(bobs).repository).toMatchObject({ full_name: 'bob/bobs' });
    // The system hook sees the private issue (it is the administrator's); bob's hook never does.
    await receiver.waitFor('/system', (received) => eventType('issues')(received) && payloadOf(received).issue?.title === 'Private matter');
    const bobSaw = receiver.received.filter((received) => received.path === '/bob-user').map((received) => payloadOf(received).repository?.full_name);
    expect(bobSaw).not.toContain('alice/secret');
    expect(bobSaw).not.toContain('alice/app');
    expect(receiver.received.filter((received) => received.path === '/inactive')).toEqual([]);
  });

  it('fires organization hooks for the organization\'s repositories, and copies default hooks into new repositories', async () => {
    await ok(201, 'POST', '/orgs', alice, { username: 'acme' });
    await ok(201, 'POST', '/orgs/acme/hooks', alice, hook('/org'));
    await ok(201, 'POST', '/admin/hooks', fixture.root, hook('/default', { config: { url: `${receiver.url}/default`, content_type: 'json' } }));
    await ok(201, 'POST', '/orgs/acme/repos', alice, { name: 'tool' });
    const created = await receiver.waitFor('/org', (received) => eventType('repository')(received) && payloadOf(received).action === 'created');
    expect(payloadOf(created).repository).toMatchObject({ full_name: 'acme/tool' });
    // The default hook is now a hook of acme/tool.
    const hooks = await ok<{ config: { url: string } }[]>(200, 'GET', '/repos/acme/tool/hooks', alice);
    expect(hooks.map((defined) => defined.config.url)).toContain(`${receiver.url}/default`);
    await ok(201, 'POST', '/repos/acme/tool/issues', alice, { title: 'Org matter' });
    await receiver.waitFor('/default', (received) => eventType('issues')(received) && payloadOf(received).issue?.title === 'Org matter');
    await receiver.waitFor('/org', (received) => eventType('issues')(received) && payloadOf(received).issue?.title === 'Org matter');
    const orgSaw = receiver.received.filter((received) => received.path === '/org').map((received) => payloadOf(received).repository?.full_name);
    expect(orgSaw).not.toContain('alice/app');
  });
  it('sends a fork to the original repository\'s hooks', async () => {
    await ok(202, 'POST', '/repos/alice/app/forks', bob, {});
    const fork = await receiver.waitFor('/repo', eventType('fork'));
    expect(payloadOf(fork)).toMatchObject({ forkee: { full_name: 'alice/app' }, repository: { full_name: 'bob/app' }, sender: { login: 'bob' } });
  });

  it('shows users as an anonymous viewer sees them, in the delivery and on the public event stream under the same id', async () => {
    await ok(200, 'PATCH', '/user/settings', fixture.root, { hide_email: true });
    await ok(200, 'PATCH', '/user/settings', alice, { hide_email: true });
    await ok(201, 'POST', '/repos/alice/app/issues', fixture.root, { title: 'Admin matter' });
    const delivery = await receiver.waitFor('/repo', (received) => eventType('issues')(received) && payloadOf(received).issue?.title === 'Admin matter');
    const pg = new Client({ connectionString: fixture.database.url });
    await pg.connect();
    let streamed: { subject: string; data: Buffer };
    try {
      // The public stream's message of the payload: its id is the delivery's (the relay may have published it already).
      const { rows } = await pg.query<{ subject: string; data: Buffer }>('SELECT subject, data FROM hooks.cairn_outbox WHERE id = $1', [delivery.headers['x-gitea-delivery']]);
      [streamed] = rows;
    } finally {
      await pg.end();
    }
    expect(streamed.subject).toBe('cairn.events.v1.public.issues');
    const body = streamed.data.toString('utf8');
    expect(JSON.parse(body)).toEqual(payloadOf(delivery));
    for (const sent of [delivery.body, body]) {
      expect(sent).not.toContain('root@example.com');
      expect(sent).not.toContain('alice@example.com');
    }
    const sent = payloadOf(delivery) as Payload & { sender: { is_admin: boolean; email: string; login_name: string } };
    expect(sent.sender).toMatchObject({ login: 'root', is_admin: false, login_name: '' });
    // Gitea's placeholder e-mail (user_model.GetPlaceholderEmail).
    expect(sent.sender.email).toMatch(/^\d+\+root@/);
  });

  it('test-delivers the last commit of the default branch to one hook, even an inactive one', async () => {
    const tested = await ok<{ id: number }>(201, 'POST', '/repos/alice/app/hooks', alice, hook('/tested', { active: false, config: { url: `${receiver.url}/tested`, content_type: 'form', secret: SECRET } }));
    await ok(204, 'POST', `/repos/alice/app/hooks/${tested.id}/tests`, alice);
    const delivery = await receiver.waitFor('/tested');
    expect(delivery.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(delivery.headers['x-gitea-signature']).toBe(giteaSignature(SECRET, delivery.body));
    const payload = JSON.parse(new URLSearchParams(delivery.body).get('payload') ?? '') as Payload;
    const head = (await ok<{ commit: { id: string } }>(200, 'GET', '/repos/alice/app/branches/main', alice)).commit.id;
    expect(payload).toMatchObject({ ref: 'refs/heads/main', after: head, pusher: { login: 'alice' } });
    expect(payload.commits?.map((commit) => commit.id)).toEqual([head]);
  });
});

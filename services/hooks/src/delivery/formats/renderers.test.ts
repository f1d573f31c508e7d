/**
 * Every hook type's body for Gitea's main events, from sample payloads shaped like modules/structs/hook.go's.
 * Expected texts are those of Gitea's services/webhook/<type>.go for the same payloads.
 */
import { renderRequest } from './index';
import type { DeliveryContent, GiteaPayload, HookTarget, RenderedRequest } from './index';

const APP = 'https://cairn.test/';
const REPO_URL = `${APP}alice/demo`;
const user = (name: string, id: number) => ({ id, login: name, full_name: `${name} full`, avatar_url: `${APP}avatars/${id}`, html_url: `${APP}${name}` });
const alice = user('alice', 1);
const bob = user('bob', 2);
const repository = { id: 10, name: 'demo', full_name: 'alice/demo', html_url: REPO_URL, owner: alice };

const commit = (id: string, message: string) => ({
  id,
  message,
  url: `${REPO_URL}/commit/${id}`,
  author: { name: 'Alice A', email: 'alice@cairn.test', username: 'alice' },
  committer: { name: 'Alice A', email: 'alice@cairn.test', username: 'alice' },
  timestamp: '2026-01-01T00:00:00Z',
  added: [],
  removed: [],
  modified: ['README.md'],
});

const SHA1 = 'aaaaaaa1111111111111111111111111111111111'.slice(0, 40);
const SHA2 = 'bbbbbbb2222222222222222222222222222222222'.slice(0, 40);

const push: GiteaPayload = {
  ref: 'refs/heads/main',
  before: '0'.repeat(40),
  after: SHA2,
  compare_url: `${REPO_URL}/compare/${SHA1}...${SHA2}`,
  commits: [commit(SHA1, 'first <change>\n\nbody'), commit(SHA2, 'second change\n')],
  total_commits: 2,
  head_commit: commit(SHA2, 'second change\n'),
  repository,
  pusher: alice,
  sender: alice,
};

const issue = { id: 501, number: 3, title: 'Broken build', body: 'It fails & stops', html_url: `${REPO_URL}/issues/3`, user: bob, assignees: [], milestone: null };
const issueOpened: GiteaPayload = { action: 'opened', number: 3, issue, repository, sender: bob };

const commentCreated: GiteaPayload = {
  action: 'created',
  issue,
  comment: { id: 77, html_url: `${REPO_URL}/issues/3#issuecomment-77`, issue_url: `${REPO_URL}/issues/3`, pull_request_url: '', body: 'Same here', user: alice },
  repository,
  sender: alice,
  is_pull: false,
};

const pullRequest = { id: 601, number: 4, title: 'Fix build', body: 'Fixes #3', url: `${REPO_URL}/pulls/4`, html_url: `${REPO_URL}/pulls/4`, user: bob, assignees: [], merged: true };
const prMerged: GiteaPayload = { action: 'closed', number: 4, pull_request: pullRequest, repository, sender: alice };

const releasePublished: GiteaPayload = {
  action: 'published',
  release: { id: 9, tag_name: 'v1.0', name: 'One', body: 'Notes', html_url: `${REPO_URL}/releases/tag/v1.0` },
  repository,
  sender: alice,
};

const content = (eventType: string, payload: GiteaPayload): DeliveryContent => ({ event: eventType, eventType, payload });
const hook = (type: string, meta: Record<string, string> = {}, url = 'https://chat.example/hook'): HookTarget => ({ type, url, httpMethod: '', contentType: 'json', meta });

function render(target: HookTarget, eventType: string, payload: GiteaPayload): { request: RenderedRequest; body: Record<string, unknown> } {
  const request = renderRequest(target, content(eventType, payload));
  return { request, body: JSON.parse(request.body) as Record<string, unknown> };
}

/** Reads a nested value of a parsed body (tests only). */
function dig(value: unknown, ...path: (string | number)[]): unknown {
  return path.reduce<unknown>((current, key) => (current as Record<string | number, unknown> | undefined)?.[key], value);
}

describe('slack', () => {
  const slack = hook('slack', { channel: '#dev', username: 'cairn', icon_url: 'https://i/x.png', color: '#123456' });

  it('posts a push with the compare link and one attachment line per commit', () => {
    const { request, body } = render(slack, 'push', push);
    expect(request).toMatchObject({ url: 'https://chat.example/hook', method: 'POST', contentType: 'application/json' });
    expect(body).toMatchObject({ channel: '#dev', username: 'cairn', icon_url: 'https://i/x.png', unfurl_links: 0, link_names: 0 });
    expect(body['text']).toBe(`[<${REPO_URL}|alice/demo>:<${REPO_URL}/src/branch/main|main>] <${REPO_URL}/compare/${SHA1}...${SHA2}|2 new commits> pushed by alice`);
    expect(dig(body, 'attachments', 0)).toEqual({
      fallback: '',
      color: '#123456',
      title: REPO_URL,
      title_link: REPO_URL,
      text: `<${REPO_URL}/commit/${SHA1}|aaaaaaa>: first &lt;change&gt; - Alice A\n<${REPO_URL}/commit/${SHA2}|bbbbbbb>: second change - Alice A`,
    });
    // Go's encoder writes <, > and & as \u escapes.
    expect(request.body).toContain('\\u003c');
    expect(request.body).not.toContain('<');
  });

  it('attaches an opened issue with its body and orange color', () => {
    const { body } = render(slack, 'issues', issueOpened);
    expect(body['text']).toBe(`[<${REPO_URL}|alice/demo>] Issue opened: <${REPO_URL}/issues/3|#3 Broken build> by <${APP}bob|bob>`);
    expect(dig(body, 'attachments', 0)).toMatchObject({ color: 'eb6420', title: '#3 Broken build', title_link: `${REPO_URL}/issues/3`, text: 'It fails &amp; stops' });
  });

  it('sends a created comment, a merged pull request and a release', () => {
    expect(render(slack, 'issue_comment', commentCreated).body['text']).toBe(`[<${REPO_URL}|alice/demo>] New comment on issue <${REPO_URL}/issues/3|#3 Broken build> by <${APP}alice|alice>`);
    expect(dig(render(slack, 'issue_comment', commentCreated).body, 'attachments', 0, 'color')).toBe('e68d60');
    const merged = render(slack, 'pull_request', prMerged).body;
    expect(merged['text']).toBe(`[<${REPO_URL}|alice/demo>] Pull request merged: <${REPO_URL}/pulls/4|#4 Fix build> by <${APP}alice|alice>`);
    expect(merged['attachments']).toBeNull();
    expect(render(slack, 'release', releasePublished).body['text']).toBe(`[<${REPO_URL}|alice/demo>] Release created: <${REPO_URL}/releases/tag/v1.0|v1.0> by <${APP}alice|alice>`);
  });
});

describe('discord', () => {
  const discord = hook('discord', { username: 'cairn', icon_url: 'https://i/x.png' });

  it('sends one embed per event with the sender as author', () => {
    const { request, body } = render(discord, 'push', push);
    expect(request.method).toBe('POST');
    expect(body).toMatchObject({ wait: false, content: '', username: 'cairn', avatar_url: 'https://i/x.png', tts: false });
    expect(dig(body, 'embeds', 0)).toEqual({
      title: '[alice/demo:main] 2 new commits',
      description: `[aaaaaaa](${REPO_URL}/commit/${SHA1}) first <change> - Alice A\n[bbbbbbb](${REPO_URL}/commit/${SHA2}) second change - Alice A`,
      url: push['compare_url'],
      color: 0x1ac600,
      footer: { text: '' },
      author: { name: 'alice', url: `${APP}alice`, icon_url: `${APP}avatars/1` },
      fields: null,
    });
  });

  it('titles issues, comments, merges and releases like Gitea', () => {
    expect(dig(render(discord, 'issues', issueOpened).body, 'embeds', 0)).toMatchObject({
      title: '[alice/demo] Issue opened: #3 Broken build',
      description: 'It fails & stops',
      url: `${REPO_URL}/issues/3`,
      color: 0xeb6420,
    });
    expect(dig(render(discord, 'issue_comment', commentCreated).body, 'embeds', 0)).toMatchObject({ title: '[alice/demo] New comment on issue #3 Broken build', description: 'Same here' });
    expect(dig(render(discord, 'pull_request', prMerged).body, 'embeds', 0)).toMatchObject({ title: '[alice/demo] Pull request merged: #4 Fix build', color: 0x7289da });
    expect(dig(render(discord, 'release', releasePublished).body, 'embeds', 0)).toMatchObject({ title: '[alice/demo] Release created: v1.0', description: 'Notes', url: `${REPO_URL}/releases/tag/v1.0` });
  });

  it('leaves avatar_url out without an icon and cuts long commit summaries at 47 characters', () => {
    const long = { ...push, commits: [commit(SHA1, 'x'.repeat(60))], total_commits: 1 };
    const { body } = render(hook('discord'), 'push', long);
    expect(body).not.toHaveProperty('avatar_url');
    expect(dig(body, 'embeds', 0, 'description')).toBe(`[aaaaaaa](${REPO_URL}/commit/${SHA1}) ${'x'.repeat(47)}... - Alice A`);
    expect(dig(body, 'embeds', 0, 'url')).toBe(`${REPO_URL}/commit/${SHA1}`);
  });
});

describe('dingtalk', () => {
  const dingtalk = hook('dingtalk');

  it('sends action cards whose button opens the page in the browser', () => {
    const { body } = render(dingtalk, 'push', push);
    expect(body['msgtype']).toBe('actionCard');
    expect(body['actionCard']).toMatchObject({
      title: '[alice/demo:main] 2 new commits',
      text: `[aaaaaaa](${REPO_URL}/commit/${SHA1}) first <change>\n\nbody - Alice A\r\n[bbbbbbb](${REPO_URL}/commit/${SHA2}) second change - Alice A`,
      hideAvatar: '0',
      singleTitle: 'view commits',
      singleURL: `dingtalk://dingtalkclient/page/link?pc_slide=false&url=${encodeURIComponent(String(push['compare_url']))}`,
    });
    expect(body['at']).toEqual({ atMobiles: null, isAtAll: false });
  });

  it('cards issues, comments, merges and releases', () => {
    expect(render(dingtalk, 'issues', issueOpened).body['actionCard']).toMatchObject({
      title: '#3 Broken build',
      text: `[alice/demo] Issue opened: #3 Broken build by bob\r\n\r\nIt fails & stops`,
      singleTitle: 'view issue',
    });
    expect(render(dingtalk, 'issue_comment', commentCreated).body['actionCard']).toMatchObject({ text: '[alice/demo] New comment on issue #3 Broken build by alice\r\n\r\nSame here', singleTitle: 'view issue comment' });
    expect(render(dingtalk, 'pull_request', prMerged).body['actionCard']).toMatchObject({ title: '#4 Fix build', text: '[alice/demo] Pull request merged: #4 Fix build by alice' });
    expect(render(dingtalk, 'release', releasePublished).body['actionCard']).toMatchObject({ title: '[alice/demo] Release created: v1.0 by alice', singleTitle: 'view release' });
  });
});

describe('telegram', () => {
  const telegram = hook('telegram', {}, 'https://api.telegram.org/botTOKEN/sendMessage?chat_id=42');

  it('posts HTML to the URL that carries the token and chat', () => {
    const { request, body } = render(telegram, 'push', push);
    expect(request.url).toBe('https://api.telegram.org/botTOKEN/sendMessage?chat_id=42');
    expect(body).toMatchObject({ parse_mode: 'HTML', disable_web_page_preview: true });
    expect(body['text']).toBe(
      `[<a href="${REPO_URL}">alice/demo</a>:<a href="${String(push['compare_url'])}">main</a>] 2 new commits` +
        `\n[<a href="${REPO_URL}/commit/${SHA1}">aaaaaaa</a>] first &lt;change&gt;\n\nbody - Alice A` +
        `\n[<a href="${REPO_URL}/commit/${SHA2}">bbbbbbb</a>] second change - Alice A`,
    );
  });

  it('links issues, comments, merges and releases', () => {
    expect(render(telegram, 'issues', issueOpened).body['text']).toBe(
      `[<a href="${REPO_URL}">alice/demo</a>] Issue opened: <a href="${REPO_URL}/issues/3">#3 Broken build</a> by <a href="${APP}bob">bob</a>\n\nIt fails &amp; stops`,
    );
    expect(render(telegram, 'issue_comment', commentCreated).body['text']).toContain('New comment on issue <a href="https://cairn.test/alice/demo/issues/3">#3 Broken build</a>');
    expect(render(telegram, 'pull_request', prMerged).body['text']).toContain('Pull request merged: <a href="https://cairn.test/alice/demo/pulls/4">#4 Fix build</a>');
    expect(render(telegram, 'release', releasePublished).body['text']).toContain('Release created: <a href="https://cairn.test/alice/demo/releases/tag/v1.0">v1.0</a>');
  });
});

describe('msteams', () => {
  const msteams = hook('msteams');

  it('sends a MessageCard with facts and a View in Gitea action', () => {
    const { body } = render(msteams, 'push', push);
    expect(body).toMatchObject({ '@type': 'MessageCard', '@context': 'https://schema.org/extensions', themeColor: '1ac600', title: '[alice/demo:main] 2 new commits', summary: '[alice/demo:main] 2 new commits' });
    expect(dig(body, 'sections', 0)).toMatchObject({
      activityTitle: 'alice full',
      activitySubtitle: 'alice',
      activityImage: `${APP}avatars/1`,
      facts: [
        { name: 'Repository:', value: 'alice/demo' },
        { name: 'Commit count:', value: '2' },
      ],
    });
    expect(dig(body, 'potentialAction', 0)).toEqual({ '@type': 'OpenUri', name: 'View in Gitea', targets: [{ os: 'default', uri: push['compare_url'] }] });
  });

  it('titles issues, comments, merges and releases', () => {
    const opened = render(msteams, 'issues', issueOpened).body;
    expect(opened).toMatchObject({ title: '[alice/demo] Issue opened: #3 Broken build', themeColor: 'eb6420' });
    expect(dig(opened, 'sections', 0, 'facts', 1)).toEqual({ name: 'Issue #:', value: '501' });
    expect(render(msteams, 'issue_comment', commentCreated).body['title']).toBe('[alice/demo] New comment on issue #3 Broken build');
    expect(render(msteams, 'pull_request', prMerged).body).toMatchObject({ title: '[alice/demo] Pull request merged: #4 Fix build', themeColor: '7289da' });
    expect(dig(render(msteams, 'release', releasePublished).body, 'sections', 0, 'facts', 1)).toEqual({ name: 'Tag:', value: 'v1.0' });
  });
});

describe('feishu', () => {
  const feishu = hook('feishu');

  it('sends text messages', () => {
    expect(render(feishu, 'push', push).body).toEqual({
      msg_type: 'text',
      content: { text: `[alice/demo:main] \r\n[aaaaaaa](${REPO_URL}/commit/${SHA1}) first <change>\n\nbody - Alice A\r\n[bbbbbbb](${REPO_URL}/commit/${SHA2}) second change - Alice A` },
    });
    expect(dig(render(feishu, 'issues', issueOpened).body, 'content', 'text')).toBe(
      `[Issue-alice/demo #3]: opened\nBroken build\n${REPO_URL}/issues/3\nIssue by bob\nOperator: bob\n\nIt fails & stops`,
    );
    expect(dig(render(feishu, 'issue_comment', commentCreated).body, 'content', 'text')).toBe(
      `[Comment-alice/demo #3]: created\nBroken build\n${REPO_URL}/issues/3\nIssue by bob\nOperator: alice\n\nSame here`,
    );
    expect(dig(render(feishu, 'pull_request', prMerged).body, 'content', 'text')).toBe(
      `[PullRequest-alice/demo #4]: closed\nFix build\n${REPO_URL}/pulls/4\nPullRequest by bob\nOperator: alice\n\nFixes #3`,
    );
    expect(dig(render(feishu, 'release', releasePublished).body, 'content', 'text')).toBe('[alice/demo] Release created: v1.0 by alice');
  });
});

describe('matrix', () => {
  const matrix = hook('matrix', { homeserver_url: 'https://matrix.example', room_id: '!room:example', message_type: '1' }, 'https://matrix.example/_matrix/client/v3/rooms/!room/send/m.room.message');

  it('PUTs to <url>/<sha1 of the body> with an HTML and a plain body', () => {
    const { request, body } = render(matrix, 'push', push);
    expect(request.method).toBe('PUT');
    expect(request.url).toMatch(/^https:\/\/matrix\.example\/_matrix\/client\/v3\/rooms\/!room\/send\/m\.room\.message\/[0-9a-f]{40}$/);
    // Same payload, same transaction id: a redelivery does not post twice.
    expect(renderRequest(matrix, content('push', push)).url).toBe(request.url);
    expect(body).toMatchObject({ msgtype: 'm.notice', format: 'org.matrix.custom.html' });
    expect(body['formatted_body']).toBe(
      `[<a href="${REPO_URL}">alice/demo</a>] alice pushed 2 commits to <a href="${REPO_URL}/src/branch/main">main</a>:<br>` +
        `<a href="${REPO_URL}/commit/${SHA1}">aaaaaaa</a>: first <change>\n\nbody - Alice A<br><a href="${REPO_URL}/commit/${SHA2}">bbbbbbb</a>: second change\n - Alice A`,
    );
    expect(body['body']).toBe(`[[alice/demo](${REPO_URL})] alice pushed 2 commits to [main](${REPO_URL}/src/branch/main):\n[aaaaaaa](${REPO_URL}/commit/${SHA1}): first <change>\n\nbody - Alice A\n[bbbbbbb](${REPO_URL}/commit/${SHA2}): second change\n - Alice A`);
    expect(dig(body, 'io.gitea.commits', 1, 'id')).toBe(SHA2);
  });

  it('sends Gitea texts for issues, comments, merges and releases', () => {
    const opened = render(matrix, 'issues', issueOpened).body;
    expect(opened['body']).toBe(`[[alice/demo](${REPO_URL})] Issue opened: [#3 Broken build](${REPO_URL}/issues/3) by [bob](${APP}bob)`);
    expect(opened).not.toHaveProperty('io.gitea.commits');
    expect(render(matrix, 'issue_comment', commentCreated).body['body']).toContain('New comment on issue [#3 Broken build]');
    expect(render(matrix, 'pull_request', prMerged).body['body']).toContain('Pull request merged: [#4 Fix build]');
    expect(render(hook('matrix', { message_type: '2' }), 'release', releasePublished).body).toMatchObject({ msgtype: 'm.text' });
  });
});

describe('wechatwork', () => {
  const wechatwork = hook('wechatwork');

  it('sends markdown messages', () => {
    const pushed = render(wechatwork, 'push', push).body;
    expect(pushed['msgtype']).toBe('markdown');
    expect(dig(pushed, 'markdown', 'content')).toBe(
      `# alice/demo:main <font color="warning">    </font>\r\n\r\n` +
        ` > [aaaaaaa](${REPO_URL}/commit/${SHA1}) \r\n ><font color="info">first <change>\r\nbody</font> \n ><font color="warning">Author: Alice A</font>\n` +
        ` > [bbbbbbb](${REPO_URL}/commit/${SHA2}) \r\n ><font color="info">second change\n</font> \n ><font color="warning">Author: Alice A</font>`,
    );
    expect(dig(render(wechatwork, 'issues', issueOpened).body, 'markdown', 'content')).toBe(
      ` ><font color="info">[alice/demo] Issue opened: #3 Broken build by bob</font>\n >It fails & stops \n ><font color="warning"> #3 Broken build</font> \n [${REPO_URL}/issues/3](${REPO_URL}/issues/3)`,
    );
    expect(dig(render(wechatwork, 'issue_comment', commentCreated).body, 'markdown', 'content')).toContain('New comment on issue #3 Broken build by alice</font>\n >Same here');
    expect(dig(render(wechatwork, 'pull_request', prMerged).body, 'markdown', 'content')).toBe(
      '> <font color="info"> [alice/demo] Pull request merged: #4 Fix build by alice </font> \r\n > <font color="comment">#4 Fix build </font> \r\n > <font color="comment"> </font> \r\n',
    );
    expect(dig(render(wechatwork, 'release', releasePublished).body, 'markdown', 'content')).toBe('[alice/demo] Release created: v1.0 by alice');
  });
});

describe('packagist', () => {
  const packagist = hook('packagist', { package_url: 'https://packagist.org/packages/alice/demo' }, 'https://packagist.org/api/update-package?username=alice&apiToken=t');

  it('names the package on a push and sends an empty URL otherwise', () => {
    const { request, body } = render(packagist, 'push', push);
    expect(request).toMatchObject({ url: 'https://packagist.org/api/update-package?username=alice&apiToken=t', method: 'POST' });
    expect(body).toEqual({ repository: { url: 'https://packagist.org/packages/alice/demo' } });
    expect(render(packagist, 'release', releasePublished).body).toEqual({ repository: { url: '' } });
  });
});

describe('create, delete, fork and repository', () => {
  const created: GiteaPayload = { sha: SHA1, ref: 'feature/x', ref_type: 'branch', repository, sender: alice };
  const deleted: GiteaPayload = { ref: 'v1.0', ref_type: 'tag', pusher_type: 'user', repository, sender: alice };
  const fork: GiteaPayload = { forkee: repository, repository: { ...repository, full_name: 'bob/demo', html_url: `${APP}bob/demo` }, sender: bob };
  const repoCreated: GiteaPayload = { action: 'created', repository, organization: alice, sender: alice };

  it('words them as Gitea does for each type', () => {
    expect(render(hook('slack'), 'create', created).body['text']).toBe(`[<${REPO_URL}|alice/demo>:<${REPO_URL}/src/branch/feature/x|feature/x>] branch created by alice`);
    expect(render(hook('slack'), 'delete', deleted).body['text']).toBe(`[<${REPO_URL}|alice/demo>:v1.0] tag deleted by alice`);
    expect(dig(render(hook('discord'), 'create', created).body, 'embeds', 0)).toMatchObject({ title: '[alice/demo] branch feature/x created', url: `${REPO_URL}/src/feature/x` });
    expect(dig(render(hook('discord'), 'delete', deleted).body, 'embeds', 0)).toMatchObject({ title: '[alice/demo] tag v1.0 deleted', color: 0xff3232 });
    expect(dig(render(hook('discord'), 'fork', fork).body, 'embeds', 0)).toMatchObject({ title: 'alice/demo is forked to bob/demo', url: `${APP}bob/demo` });
    expect(dig(render(hook('feishu'), 'repository', repoCreated).body, 'content', 'text')).toBe('[alice/demo] Repository created');
    expect(render(hook('msteams'), 'fork', fork).body['sections']).toMatchObject([{ facts: [{ name: 'Repository:', value: 'bob/demo' }, { name: 'Forkee:', value: 'alice/demo' }] }]);
    expect(dig(render(hook('matrix'), 'create', created).body, 'formatted_body')).toBe(`[<a href="${REPO_URL}">alice/demo</a>:<a href="${REPO_URL}/src/commit/feature/x">feature/x</a>] branch created by alice`);
    expect(render(hook('dingtalk'), 'repository', { ...repoCreated, action: 'deleted' }).body).toMatchObject({ msgtype: 'text', text: { content: '[alice/demo] Repository deleted' } });
    expect(dig(render(hook('wechatwork'), 'fork', fork).body, 'markdown', 'content')).toBe('alice/demo is forked to bob/demo');
    expect(render(hook('telegram'), 'repository', repoCreated).body['text']).toBe(`[<a href="${REPO_URL}">alice/demo</a>] Repository created`);
  });
});

describe('issue and pull request actions', () => {
  it('names assignees and milestones', () => {
    const assigned: GiteaPayload = { ...issueOpened, action: 'assigned', issue: { ...issue, assignees: [alice, bob] } };
    expect(dig(render(hook('discord'), 'issue_assign', assigned).body, 'embeds', 0)).toMatchObject({ title: '[alice/demo] Issue assigned to alice, bob: #3 Broken build', description: '', color: 0x1ac600 });
    const milestoned: GiteaPayload = { ...prMerged, action: 'milestoned', pull_request: { ...pullRequest, milestone: { id: 5, title: 'v2' } } };
    expect(dig(render(hook('matrix'), 'pull_request_milestone', milestoned).body, 'body')).toBe(
      `[[alice/demo](${REPO_URL})] Pull request milestoned to [v2](${REPO_URL}/milestone/5): [#4 Fix build](${REPO_URL}/pulls/4) by [alice](${APP}alice)`,
    );
    expect(dig(render(hook('feishu'), 'issue_assign', assigned).body, 'content', 'text')).toBe(
      `[Issue-alice/demo #3]: assigned\nBroken build\n${REPO_URL}/issues/3\nIssue by bob\nOperator: bob\nbob assign this to bob\nAssignees: alice, bob\n\nIt fails & stops`,
    );
  });

  it('sends a pull request comment event as a comment or, without one, as a pull request', () => {
    const prComment: GiteaPayload = { ...commentCreated, is_pull: true, comment: { ...(commentCreated['comment'] as object), pull_request_url: `${REPO_URL}/pulls/3` } };
    expect(dig(render(hook('discord'), 'pull_request_comment', prComment).body, 'embeds', 0)).toMatchObject({ title: '[alice/demo] New comment on pull request #3 Broken build', color: 0xbfe5bf });
    expect(dig(render(hook('discord'), 'pull_request_comment', prMerged).body, 'embeds', 0, 'title')).toBe('[alice/demo] Pull request merged: #4 Fix build');
  });
});

describe('renderRequest', () => {
  it('uses the hook method when it has one', () => {
    expect(renderRequest({ ...hook('slack'), httpMethod: 'PUT' }, content('push', push)).method).toBe('PUT');
  });

  it('refuses an unknown type and an event type Gitea cannot convert', () => {
    expect(() => renderRequest(hook('irc'), content('push', push))).toThrow('no renderer for hook type irc');
    expect(() => renderRequest(hook('slack'), content('workflow_run', push))).toThrow('cannot send event type workflow_run');
  });

  it('names the review kind from the event type', () => {
    const reviewed: GiteaPayload = { ...prMerged, action: 'reviewed', review: { type: 'pull_request_review_approved', content: 'LGTM' } };
    expect(dig(render(hook('discord'), 'pull_request_review_approved', reviewed).body, 'embeds', 0)).toMatchObject({
      title: '[alice/demo] Pull request review approved: #4 Fix build',
      description: 'LGTM',
      color: 0x1ac600,
    });
    expect(render(hook('feishu'), 'pull_request_review_rejected', reviewed).body).toEqual({ msg_type: 'text', content: { text: '[alice/demo] Pull request review rejected : #4 Fix build\r\n\r\nLGTM' } });
  });
});

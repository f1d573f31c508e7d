import type { IssueMailData, TransferMailData } from './jobs';
import { escapeHtml, renderIssueMail, renderTransferMail } from './templates';

const site = { appName: 'Cairn', rootUrl: 'https://code.example.com/', subjectPrefix: '' };
const alice = { login: 'alice', fullName: 'Alice <Admin>' };

const issue: IssueMailData = {
  action: 'comment',
  actorId: 2,
  repoId: 7,
  repoFullName: 'alice/tools',
  issueId: 40,
  issueIndex: 3,
  isPull: false,
  title: 'Crash on <start>',
  body: 'It fails: <script>alert(1)</script>',
  commentId: 99,
};

describe('renderIssueMail', () => {
  it('answers a comment with Re: [owner/repo] Title (#N) and links the comment', () => {
    const mail = renderIssueMail(site, issue, alice, 'participant');
    expect(mail.subject).toBe('Re: [alice/tools] Crash on <start> (#3)');
    expect(mail.text).toContain('@alice commented:');
    expect(mail.text).toContain('It fails: <script>alert(1)</script>');
    expect(mail.text).toContain('https://code.example.com/alice/tools/issues/3#issuecomment-99');
    expect(mail.html).toContain('It fails: &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(mail.html).toContain('<title>Re: [alice/tools] Crash on &lt;start&gt; (#3)</title>');
    expect(mail.html).not.toContain('<script>');
  });

  it('opens without Re:, links pull requests under /pulls, and puts SUBJECT_PREFIX first', () => {
    const mail = renderIssueMail({ ...site, subjectPrefix: '[Cairn] ' }, { ...issue, action: 'new', isPull: true, commentId: 0 }, alice, 'watcher');
    expect(mail.subject).toBe('[Cairn] [alice/tools] Crash on <start> (#3)');
    expect(mail.text).toContain('@alice created #3.');
    expect(mail.text).toContain('https://code.example.com/alice/tools/pulls/3\n');
  });

  it('says a mention is one', () => {
    expect(renderIssueMail(site, issue, alice, 'mention').text.split('\n')[0]).toBe('@alice mentioned you:');
  });
});

describe('renderTransferMail', () => {
  const transfer: TransferMailData = { actorId: 2, repoId: 7, repoFullName: 'alice/tools', recipientOwnerId: 5, recipientOwnerName: 'bob' };

  it('asks the recipient with Gitea\'s subject and gives the accept and reject links', () => {
    const mail = renderTransferMail(site, transfer, alice, undefined);
    expect(mail.subject).toBe('Alice <Admin> would like to transfer "alice/tools" to you');
    expect(mail.text).toContain('To accept or reject it, visit https://code.example.com/alice/tools or just ignore it.');
    expect(mail.text).toContain('Accept: https://code.example.com/alice/tools/action/accept_transfer');
    expect(mail.text).toContain('Reject: https://code.example.com/alice/tools/action/reject_transfer');
    expect(mail.text).toContain('POST https://code.example.com/api/v1/repos/alice/tools/transfer/accept');
    expect(mail.html).toContain('<a href="https://code.example.com/alice/tools/action/accept_transfer">');
    expect(mail.html).toContain('Alice &lt;Admin&gt; would like');
    expect(mail.html).not.toContain('<Admin>');
  });

  it('names the organization it goes to', () => {
    const mail = renderTransferMail(site, { ...transfer, recipientOwnerName: 'acme' }, { login: 'alice', fullName: '' }, { login: 'acme', fullName: 'Acme Inc.' });
    expect(mail.subject).toBe('alice would like to transfer "alice/tools" to Acme Inc.');
  });
});

it('escapes what HTML would read', () => {
  expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
});

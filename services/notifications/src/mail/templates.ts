/**
 * The mails' subjects and bodies, as Gitea's services/mailer/mail_issue.go (composeIssueCommentMessages), mail_repo.go
 * (sendRepoTransferNotifyMailPerLang) and templates/mail/issue/default.tmpl, repo/transfer.tmpl with Gitea's English
 * locale (options/locale/locale_en-US.ini `mail.*`). Every mail has a text and an HTML part; user text (titles,
 * names, comment bodies) is escaped in the HTML part. The comment body is shown as written (Markdown source): Cairn
 * renders no Markdown.
 */
import type { IssueMailData, TransferMailData } from './jobs';

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** What a template needs beyond the job's data: the site, and names looked up when the mail is sent. */
export interface MailSite {
  appName: string;
  /** `[server] ROOT_URL`, ending in `/`. */
  rootUrl: string;
  /** `[mailer] SUBJECT_PREFIX`, put before every subject. */
  subjectPrefix: string;
}

/** Gitea's DisplayName: the full name when there is one, else the user name. */
export interface MailPerson {
  login: string;
  fullName: string;
}

export function displayName(person: MailPerson): string {
  return person.fullName.trim() !== '' ? person.fullName : person.login;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

function page(subject: string, body: string): string {
  return (
    '<!DOCTYPE html>\n<html>\n<head>\n\t<meta http-equiv="Content-Type" content="text/html; charset=utf-8">\n' +
    `\t<title>${escapeHtml(subject)}</title>\n</head>\n<body>\n${body}\n</body>\n</html>\n`
  );
}

function link(url: string, label: string): string {
  return `<a href="${escapeHtml(url)}">${escapeHtml(label)}</a>`;
}

/** The issue's (or pull request's) web address, with the comment's anchor when there is one. */
export function issueLink(site: MailSite, data: Pick<IssueMailData, 'repoFullName' | 'isPull' | 'issueIndex' | 'commentId'>): string {
  const base = `${site.rootUrl}${data.repoFullName}/${data.isPull ? 'pulls' : 'issues'}/${data.issueIndex}`;
  return data.commentId > 0 ? `${base}#issuecomment-${data.commentId}` : base;
}

/** The line above the body that says what happened (Gitea's `mail.issue.action.*`, `mail.issue_assigned.*`). */
function actionLine(data: IssueMailData, actor: string, reason: string): string {
  const thing = `#${data.issueIndex}`;
  switch (data.action) {
    case 'new':
      return reason === 'mention' ? `@${actor} mentioned you:` : `@${actor} created ${thing}.`;
    case 'close':
      return `@${actor} closed ${thing}.`;
    case 'reopen':
      return `@${actor} reopened ${thing}.`;
    case 'merge':
      return `@${actor} merged ${thing}.`;
    case 'assign':
      return `@${actor} assigned you to ${data.isPull ? 'pull request' : 'issue'} ${thing} in repository ${data.repoFullName}.`;
    case 'review_request':
      return `@${actor} requested your review on pull request ${thing} in repository ${data.repoFullName}.`;
    case 'review_approved':
      return `@${actor} approved this pull request.`;
    case 'review_rejected':
      return `@${actor} requested changes on this pull request.`;
    case 'review_comment':
      return `@${actor} commented on this pull request.`;
    case 'push':
      return `@${actor} pushed to this pull request.`;
    case 'comment':
      return reason === 'mention' ? `@${actor} mentioned you:` : `@${actor} commented:`;
  }
}

/**
 * An issue or pull request mail: subject `[owner/repo] Title (#N)`, `Re: ` before it for everything but the opening
 * (Gitea's fallbackMailSubject and composeIssueCommentMessages), the action, the body, and the link to the comment.
 */
export function renderIssueMail(site: MailSite, data: IssueMailData, actor: MailPerson, reason: string): RenderedMail {
  const subject = `${site.subjectPrefix}${data.action === 'new' ? '' : 'Re: '}[${data.repoFullName}] ${data.title} (#${data.issueIndex})`;
  const url = issueLink(site, data);
  const line = actionLine(data, actor.login, reason);
  const view = `View it on ${site.appName}`;
  const text = [line, ...(data.body === '' ? [] : ['', data.body]), '', '---', `${view}: ${url}`, ''].join('\n');
  const bodyHtml = data.body === '' ? '' : `\t<div style="white-space: pre-wrap">${escapeHtml(data.body)}</div>\n`;
  const html = page(subject, `\t<p>${escapeHtml(line)}</p>\n${bodyHtml}\t<p>---<br>${link(url, view)}.</p>`);
  return { subject, text, html };
}

/** The links of a pending transfer: the repository, and Gitea's web routes to answer it. */
export function transferLinks(site: MailSite, repoFullName: string): { repo: string; accept: string; reject: string } {
  const repo = `${site.rootUrl}${repoFullName}`;
  return { repo, accept: `${repo}/action/accept_transfer`, reject: `${repo}/action/reject_transfer` };
}

/**
 * A pending transfer, to someone who may accept it (Gitea's mail_repo.go): subject `<doer> would like to transfer
 * "<owner/repo>" to you` (to an organization: `… to <organization>`), the repository's link, and — Cairn's
 * addition, which the issue asks for — the accept and reject links and the API endpoints that do the same.
 */
export function renderTransferMail(site: MailSite, data: TransferMailData, doer: MailPerson, toOrganization: MailPerson | undefined): RenderedMail {
  const destination = toOrganization === undefined ? 'you' : displayName(toOrganization);
  const subject = `${site.subjectPrefix}${displayName(doer)} would like to transfer "${data.repoFullName}" to ${destination}`;
  const links = transferLinks(site, data.repoFullName);
  const api = `${site.rootUrl}api/v1/repos/${data.repoFullName}/transfer`;
  const text = [
    `${subject}.`,
    `To accept or reject it, visit ${links.repo} or just ignore it.`,
    '',
    `Accept: ${links.accept}`,
    `Reject: ${links.reject}`,
    `(or POST ${api}/accept or POST ${api}/reject)`,
    '',
    '---',
    `View it on ${site.appName}: ${links.repo}`,
    '',
  ].join('\n');
  const html = page(
    subject,
    `\t<p>${escapeHtml(subject)}.\n\t\tTo accept or reject it, visit ${link(links.repo, data.repoFullName)} or just ignore it.</p>\n` +
      `\t<p>${link(links.accept, 'Accept the transfer')} · ${link(links.reject, 'Reject the transfer')}</p>\n` +
      `\t<p>Or with the API: <code>POST ${escapeHtml(api)}/accept</code>, <code>POST ${escapeHtml(api)}/reject</code></p>\n` +
      `\t<p>---<br>${link(links.repo, `View it on ${site.appName}`)}.</p>`,
  );
  return { subject, text, html };
}

/** The slack type (services/webhook/slack.go): `{channel, text, username, icon_url, attachments}` with Slack's `<url|text>` links. */
import {
  type Convertor,
  type JsonObject,
  commentText,
  convert,
  hexColor,
  issueOrPullText,
  jsonRequest,
  login,
  newCommitsText,
  noneLink,
  obj,
  objects,
  refShortName,
  refURL,
  releaseText,
  repoLink,
  repoOf,
  reviewAction,
  senderLink,
  shortId,
  statusText,
  str,
  wikiText,
} from './text';
import type { GiteaPayload, Renderer } from './types';

interface SlackAttachment {
  fallback: string;
  color: string;
  title: string;
  title_link: string;
  text: string;
}

interface SlackMessage {
  channel: string;
  text: string;
  username: string;
  icon_url: string;
  unfurl_links: number;
  link_names: number;
  /** null when there is none (Go's nil slice). */
  attachments: SlackAttachment[] | null;
}

/** SlackTextFormatter: `&`, `<`, `>` escaped (Slack's formatting rules). */
function slackText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** SlackLinkFormatter: `<url|text>`. */
function slackLink(url: string, text: string): string {
  return `<${url}|${slackText(text)}>`;
}

/** SlackLinkToRef: a link to the ref's page named by its short name. */
function refLink(repo: JsonObject, ref: string): string {
  return slackLink(refURL(str(repo, 'html_url'), ref), refShortName(ref));
}

function attachment(color: string, title: string, titleLink: string, text: string): SlackAttachment {
  return { fallback: '', color, title, title_link: titleLink, text };
}

function slackConvertor(meta: Readonly<Record<string, string>>): Convertor<SlackMessage> {
  const message = (text: string, attachments: SlackAttachment[] | null = null): SlackMessage => ({
    channel: meta['channel'] ?? '',
    text,
    username: meta['username'] ?? '',
    icon_url: meta['icon_url'] ?? '',
    unfurl_links: 0,
    link_names: 0,
    attachments,
  });
  // Gitea attaches the issue body, or for a pull request always its body (even for a review's text).
  const issueLike = (p: GiteaPayload, item: 'issue' | 'pull_request'): SlackMessage => {
    const info = issueOrPullText(p, slackLink, true);
    if (info.extra === '') return message(info.text);
    const body = item === 'issue' ? info.extra : str(p, item, 'body');
    return message(info.text, [attachment(hexColor(info.color), slackText(info.title), str(p, item, 'html_url'), slackText(body))]);
  };
  return {
    create: (p) => message(`[${repoLink(repoOf(p), slackLink)}:${refLink(repoOf(p), str(p, 'ref'))}] ${str(p, 'ref_type')} created by ${login(obj(p, 'sender'))}`),
    delete: (p) => message(`[${repoLink(repoOf(p), slackLink)}:${refShortName(str(p, 'ref'))}] ${str(p, 'ref_type')} deleted by ${login(obj(p, 'sender'))}`),
    fork: (p) => message(`${repoLink(obj(p, 'forkee'), slackLink)} is forked to ${repoLink(repoOf(p), slackLink)}`),
    push: (p) => {
      const repo = repoOf(p);
      const compare = str(p, 'compare_url');
      const commits = compare !== '' ? slackLink(compare, newCommitsText(p)) : newCommitsText(p);
      const text = `[${repoLink(repo, slackLink)}:${refLink(repo, str(p, 'ref'))}] ${commits} pushed by ${login(obj(p, 'pusher'))}`;
      const lines = objects(p, 'commits').map(
        (c) => `${slackLink(str(c, 'url'), shortId(c))}: ${slackText(str(c, 'message').split('\n')[0] ?? '')} - ${slackText(str(c, 'author', 'name'))}`,
      );
      // The push attachment takes the hook's own color setting, not an event color.
      return message(text, [attachment(meta['color'] ?? '', str(repo, 'html_url'), str(repo, 'html_url'), lines.join('\n'))]);
    },
    issue: (p) => issueLike(p, 'issue'),
    issueComment: (p) => {
      const info = commentText(p, slackLink, true);
      return message(info.text, [attachment(hexColor(info.color), info.title, str(p, 'comment', 'html_url'), slackText(info.extra))]);
    },
    pullRequest: (p) => issueLike(p, 'pull_request'),
    review: (p, eventType) => {
      const repo = repoOf(p);
      if (str(p, 'action') !== 'reviewed') return message('');
      const title = `#${str(p, 'number')} ${str(p, 'pull_request', 'title')}`;
      const titleLink = `${str(repo, 'html_url')}/pulls/${str(p, 'number')}`;
      return message(`[${repoLink(repo, slackLink)}] Pull request review ${reviewAction(eventType)}: [${title}](${titleLink}) by ${senderLink(p, slackLink)}`);
    },
    repository: (p) => {
      const action = str(p, 'action');
      if (action !== 'created' && action !== 'deleted') return message('');
      return message(`[${repoLink(repoOf(p), slackLink)}] Repository ${action} by ${senderLink(p, slackLink)}`);
    },
    release: (p) => message(releaseText(p, slackLink, true).text),
    wiki: (p) => message(wikiText(p, slackLink, true).text),
    status: (p) => message(statusText(p, noneLink, true).text),
  };
}

export const renderSlack: Renderer = (hook, content) => jsonRequest(hook, convert(slackConvertor(hook.meta), content));

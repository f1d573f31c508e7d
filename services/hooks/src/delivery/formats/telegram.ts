/**
 * The telegram type (services/webhook/telegram.go): `sendMessage` with an HTML text. The hook's URL already
 * carries the bot token and chat id (`…/bot<token>/sendMessage?chat_id=…`), so it is used as it is.
 */
import {
  type Convertor,
  commentText,
  convert,
  htmlEscape,
  htmlLink,
  issueOrPullText,
  jsonRequest,
  newCommitsText,
  obj,
  objects,
  pushTitleLink,
  refShortName,
  releaseText,
  repoOf,
  repoLink,
  reviewTitle,
  shortId,
  srcURL,
  statusText,
  str,
  trimMessage,
  wikiText,
} from './text';
import type { GiteaPayload, Renderer } from './types';

interface TelegramMessage {
  text: string;
  parse_mode: string;
  disable_web_page_preview: boolean;
}

/** createTelegramPayloadHTML (Gitea also runs its HTML sanitizer; every text here is already escaped). */
function html(text: string): TelegramMessage {
  return { text: text.trim(), parse_mode: 'HTML', disable_web_page_preview: true };
}

function refChange(p: GiteaPayload, verb: string): TelegramMessage {
  const repo = repoOf(p);
  const name = refShortName(str(p, 'ref'));
  return html(`[${repoLink(repo, htmlLink)}] ${htmlEscape(str(p, 'ref_type'))} ${htmlLink(srcURL(str(repo, 'html_url'), str(p, 'ref')), name)} ${verb}`);
}

const telegramConvertor: Convertor<TelegramMessage> = {
  create: (p) => refChange(p, 'created'),
  delete: (p) => refChange(p, 'deleted'),
  fork: (p) => html(`${htmlEscape(str(p, 'forkee', 'full_name'))} is forked to ${repoLink(repoOf(p), htmlLink)}`),
  push: (p) => {
    const title = `[${repoLink(repoOf(p), htmlLink)}:${htmlLink(pushTitleLink(p), refShortName(str(p, 'ref')))}] ${htmlEscape(newCommitsText(p))}`;
    const lines = objects(p, 'commits').map((c) => {
      const author = obj(c, 'author');
      const by = Object.keys(author).length > 0 ? ` - ${htmlEscape(str(author, 'name'))}` : '';
      return `\n[${htmlLink(str(c, 'url'), shortId(c))}] ${htmlEscape(trimMessage(str(c, 'message')))}${by}`;
    });
    return html(title + lines.join(''));
  },
  issue: (p) => {
    const info = issueOrPullText(p, htmlLink, true);
    return html(`${info.text}\n\n${htmlEscape(info.extra)}`);
  },
  issueComment: (p) => {
    const info = commentText(p, htmlLink, true);
    return html(`${info.text}\n${htmlEscape(info.extra)}`);
  },
  pullRequest: (p) => {
    const info = issueOrPullText(p, htmlLink, true);
    return html(`${info.text}\n${htmlEscape(info.extra)}`);
  },
  review: (p, eventType) => {
    const reviewed = str(p, 'action') === 'reviewed';
    return html(`${htmlEscape(reviewTitle(p, eventType))}\n${htmlEscape(reviewed ? str(p, 'review', 'content') : '')}`);
  },
  repository: (p) => {
    const action = str(p, 'action');
    if (action === 'created') return html(`[${repoLink(repoOf(p), htmlLink)}] Repository created`);
    if (action === 'deleted') return html(`[${htmlEscape(str(repoOf(p), 'full_name'))}] Repository deleted`);
    return { text: '', parse_mode: '', disable_web_page_preview: false };
  },
  release: (p) => html(releaseText(p, htmlLink, true).text),
  wiki: (p) => html(wikiText(p, htmlLink, true).text),
  status: (p) => html(statusText(p, htmlLink, true).text),
};

export const renderTelegram: Renderer = (hook, content) => jsonRequest(hook, convert(telegramConvertor, content));

/**
 * The dingtalk type (services/webhook/dingtalk.go): an `actionCard` message (title, markdown text, one "view …"
 * button opening the page in the browser); a deleted repository is a plain `text` message.
 */
import {
  type Convertor,
  commentText,
  convert,
  forkTitle,
  issueOrPullText,
  jsonRequest,
  markdownCommitLine,
  noneLink,
  num,
  objects,
  queryEscape,
  pushTitle,
  pushTitleLink,
  refChangeTitle,
  refShortName,
  releaseText,
  repoOf,
  repositoryTitle,
  reviewTitle,
  srcURL,
  statusText,
  str,
  wikiText,
  wikiURL,
} from './text';
import type { Renderer } from './types';

/** gitea.com/lunny/dingtalk_webhook's Payload: every part is sent, the unused ones empty. */
interface DingtalkMessage {
  msgtype: string;
  text: { content: string };
  link: { text: string; title: string; picUrl: string; messageUrl: string };
  markdown: { text: string; title: string };
  actionCard: {
    text: string;
    title: string;
    hideAvatar: string;
    btnOrientation: string;
    singleTitle?: string;
    singleURL: string;
    btns: null;
  };
  feedCard: { links: null };
  at: { atMobiles: null; isAtAll: boolean };
}

function dingtalkMessage(msgtype: string, text: string, card: DingtalkMessage['actionCard']): DingtalkMessage {
  return {
    msgtype,
    text: { content: text },
    link: { text: '', title: '', picUrl: '', messageUrl: '' },
    markdown: { text: '', title: '' },
    actionCard: card,
    feedCard: { links: null },
    at: { atMobiles: null, isAtAll: false },
  };
}

const NO_CARD: DingtalkMessage['actionCard'] = { text: '', title: '', hideAvatar: '', btnOrientation: '', singleURL: '', btns: null };

/** createDingtalkPayload: the button opens `url` in the browser (dingtalk:// link), not inside DingTalk. */
function card(title: string, text: string, singleTitle: string, url: string): DingtalkMessage {
  return dingtalkMessage('actionCard', '', {
    text: text.trim(),
    title: title.trim(),
    hideAvatar: '0',
    btnOrientation: '',
    ...(singleTitle !== '' ? { singleTitle } : {}),
    singleURL: `dingtalk://dingtalkclient/page/link?pc_slide=false&url=${queryEscape(url)}`,
    btns: null,
  });
}

const dingtalkConvertor: Convertor<DingtalkMessage> = {
  create: (p) => {
    const title = refChangeTitle(p, 'created');
    return card(title, title, `view ref ${refShortName(str(p, 'ref'))}`, srcURL(str(repoOf(p), 'html_url'), str(p, 'ref')));
  },
  delete: (p) => {
    const title = refChangeTitle(p, 'deleted');
    return card(title, title, `view ref ${refShortName(str(p, 'ref'))}`, srcURL(str(repoOf(p), 'html_url'), str(p, 'ref')));
  },
  fork: (p) => card(forkTitle(p), forkTitle(p), `view forked repo ${str(repoOf(p), 'full_name')}`, str(repoOf(p), 'html_url')),
  push: (p) => {
    const lines = objects(p, 'commits').map(markdownCommitLine);
    const linkText = num(p, 'total_commits') === 1 ? 'view commit' : 'view commits';
    return card(pushTitle(p), lines.join('\r\n'), linkText, pushTitleLink(p));
  },
  issue: (p) => {
    const info = issueOrPullText(p, noneLink, true);
    return card(info.title, `${info.text}\r\n\r\n${info.extra}`, 'view issue', str(p, 'issue', 'html_url'));
  },
  issueComment: (p) => {
    const info = commentText(p, noneLink, true);
    return card(info.title, `${info.text}\r\n\r\n${info.extra}`, 'view issue comment', str(p, 'comment', 'html_url'));
  },
  pullRequest: (p) => {
    const info = issueOrPullText(p, noneLink, true);
    return card(info.title, `${info.text}\r\n\r\n${info.extra}`, 'view pull request', str(p, 'pull_request', 'html_url'));
  },
  review: (p, eventType) => {
    const title = reviewTitle(p, eventType, ' :');
    const text = title !== '' ? str(p, 'review', 'content') : '';
    return card(title, `${title}\r\n\r\n${text}`, 'view pull request', str(p, 'pull_request', 'html_url'));
  },
  repository: (p) => {
    const title = repositoryTitle(p);
    if (str(p, 'action') === 'created') return card(title, title, 'view repository', str(repoOf(p), 'html_url'));
    // A deleted repository has no page to link to: Gitea sends plain text.
    return dingtalkMessage(title === '' ? '' : 'text', title, NO_CARD);
  },
  release: (p) => {
    const { text } = releaseText(p, noneLink, true);
    return card(text, text, 'view release', str(p, 'release', 'html_url'));
  },
  wiki: (p) => {
    const { text } = wikiText(p, noneLink, true);
    return card(text, text, 'view wiki', wikiURL(p));
  },
  // Gitea's dingtalk.go has no status layout; Cairn sends general.go's status text as a plain text message.
  status: (p) => dingtalkMessage('text', statusText(p, noneLink, true).text, NO_CARD),
};

export const renderDingtalk: Renderer = (hook, content) => jsonRequest(hook, convert(dingtalkConvertor, content));

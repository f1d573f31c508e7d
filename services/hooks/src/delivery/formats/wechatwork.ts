/** The wechatwork type (services/webhook/wechatwork.go): a `markdown` message with WeCom's `<font color>` highlights. */
import {
  type Convertor,
  commentText,
  convert,
  forkTitle,
  issueOrPullText,
  jsonRequest,
  noneLink,
  objects,
  refChangeTitle,
  refShortName,
  releaseText,
  repoOf,
  repositoryTitle,
  reviewTitle,
  shortId,
  statusText,
  str,
  wikiText,
} from './text';
import type { Renderer } from './types';

/** WechatworkPayload: the text part is sent empty beside the markdown one. */
interface WechatworkMessage {
  msgtype: string;
  text: { content: string; mentioned_list: null; mentioned_mobile_list: null };
  markdown: { content: string };
}

function markdown(content: string, msgtype = 'markdown'): WechatworkMessage {
  return { msgtype, text: { content: '', mentioned_list: null, mentioned_mobile_list: null }, markdown: { content } };
}

const wechatworkConvertor: Convertor<WechatworkMessage> = {
  create: (p) => markdown(refChangeTitle(p, 'created')),
  delete: (p) => markdown(refChangeTitle(p, 'deleted')),
  fork: (p) => markdown(forkTitle(p)),
  push: (p) => {
    // Gitea's wechatwork.go leaves the commit count out of the highlighted part of its push title.
    const title = `# ${str(repoOf(p), 'full_name')}:${refShortName(str(p, 'ref'))} <font color="warning">    </font>`;
    const lines = objects(p, 'commits').map((c) => {
      const author = str(c, 'author', 'name');
      const message = str(c, 'message').replace(/\n\n/g, '\r\n');
      return ` > [${shortId(c)}](${str(c, 'url')}) \r\n ><font color="info">${message}</font> \n ><font color="warning">${author !== '' ? `Author: ${author}` : ''}</font>`;
    });
    return markdown(`${title}\r\n\r\n${lines.join('\n')}`);
  },
  issue: (p) => {
    const info = issueOrPullText(p, noneLink, true);
    const link = str(p, 'issue', 'html_url');
    return markdown(` ><font color="info">${info.text}</font>\n >${info.extra} \n ><font color="warning"> ${info.title}</font> \n [${link}](${link})`);
  },
  issueComment: (p) => {
    const info = commentText(p, noneLink, true);
    const link = str(p, 'comment', 'html_url');
    return markdown(` ><font color="info">${info.text}</font>\n >${info.extra} \n ><font color="warning">${info.title}</font> \n [${link}](${link})`);
  },
  pullRequest: (p) => {
    const info = issueOrPullText(p, noneLink, true);
    return markdown(
      `> <font color="info"> ${info.text} </font> \r\n > <font color="comment">${info.title} </font> \r\n > <font color="comment">${info.extra} </font> \r\n`,
    );
  },
  review: (p, eventType) => {
    const title = reviewTitle(p, eventType, ' :');
    return markdown(`# ${title}\r\n\r\n >${title !== '' ? str(p, 'review', 'content') : ''}`);
  },
  repository: (p) => {
    const title = repositoryTitle(p);
    return title === '' ? markdown('', '') : markdown(title);
  },
  release: (p) => markdown(releaseText(p, noneLink, true).text),
  wiki: (p) => markdown(wikiText(p, noneLink, true).text),
  status: (p) => markdown(statusText(p, noneLink, true).text),
};

export const renderWechatwork: Renderer = (hook, content) => jsonRequest(hook, convert(wechatworkConvertor, content));

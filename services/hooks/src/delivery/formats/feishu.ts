/** The feishu type (services/webhook/feishu.go): a `text` message, one fact per line for issues and pull requests. */
import {
  type Convertor,
  commentFacts,
  convert,
  forkTitle,
  issueFacts,
  jsonRequest,
  markdownCommitLine,
  noneLink,
  objects,
  refChangeTitle,
  refShortName,
  releaseText,
  repoOf,
  repositoryTitle,
  reviewTitle,
  statusText,
  str,
  wikiText,
} from './text';
import type { Renderer } from './types';

interface FeishuMessage {
  msg_type: string;
  content: { text: string };
}

function text(content: string): FeishuMessage {
  return { msg_type: 'text', content: { text: content.trim() } };
}

const feishuConvertor: Convertor<FeishuMessage> = {
  create: (p) => text(refChangeTitle(p, 'created')),
  delete: (p) => text(refChangeTitle(p, 'deleted')),
  fork: (p) => text(forkTitle(p)),
  push: (p) => {
    // Gitea's feishu.go leaves the commit count out of its push title (`[owner/repo:branch] ` then the commits).
    const title = `[${str(repoOf(p), 'full_name')}:${refShortName(str(p, 'ref'))}] \r\n`;
    const lines = objects(p, 'commits').map(markdownCommitLine);
    return text(title + lines.join('\r\n'));
  },
  issue: (p) => text(`${issueFacts(p).join('\n')}\n\n${str(p, 'issue', 'body')}`),
  issueComment: (p) => text(`${commentFacts(p).join('\n')}\n\n${str(p, 'comment', 'body')}`),
  pullRequest: (p) => text(`${issueFacts(p).join('\n')}\n\n${str(p, 'pull_request', 'body')}`),
  review: (p, eventType) => {
    // Gitea's feishu.go titles any review event, whatever its action.
    return text(`${reviewTitle({ ...p, action: 'reviewed' }, eventType, ' :')}\r\n\r\n${str(p, 'review', 'content')}`);
  },
  repository: (p) => {
    const title = repositoryTitle(p);
    return title === '' ? { msg_type: '', content: { text: '' } } : text(title);
  },
  release: (p) => text(releaseText(p, noneLink, true).text),
  wiki: (p) => text(wikiText(p, noneLink, true).text),
  status: (p) => text(statusText(p, noneLink, true).text),
};

export const renderFeishu: Renderer = (hook, content) => jsonRequest(hook, convert(feishuConvertor, content));

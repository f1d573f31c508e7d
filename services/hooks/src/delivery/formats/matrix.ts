/**
 * The matrix type (services/webhook/matrix.go): an `m.room.message` event PUT to `<hook url>/<txnId>`, the
 * transaction id being the sha1 of the body so a redelivery is the same event for the homeserver. The access
 * token travels as the hook's authorization header (`Bearer …`), which the deliverer sends for every type.
 */
import {
  type Convertor,
  type JsonObject,
  commentText,
  convert,
  htmlLink,
  issueOrPullText,
  login,
  marshalIndent,
  num,
  obj,
  objects,
  pathEscapeSegments,
  refShortName,
  releaseText,
  repoOf,
  repoLink,
  reviewAction,
  senderLink,
  sha1Hex,
  shortId,
  str,
  wikiText,
} from './text';
import type { Renderer } from './types';

interface MatrixMessage {
  body: string;
  msgtype: string;
  format: string;
  formatted_body: string;
  /** The push's commits as Gitea's payload has them; left out when there are none. */
  'io.gitea.commits'?: JsonObject[];
}

/** matrixPayloadSizeLimit: a bigger body is refused (Matrix events are limited to 64 KiB). */
const SIZE_LIMIT = 64 * 1024;

/** The hook's message_type setting: 1 notice, 2 text (messageTypeText). */
const MESSAGE_TYPES: Readonly<Record<string, string>> = { '1': 'm.notice', '2': 'm.text' };

/** getMessageBody: the plain body of an HTML text (links as `[text](url)`, `<br>` as newlines). */
function plainBody(html: string): string {
  return html.replace(/<a [^>]*?href="([^">]*?)">(.*?)<\/a>/g, '[$2]($1)').replace(/<br>/g, '\n');
}

/** MatrixLinkToRef: branch and tag pages; anything else (a short name too) is linked as a commit. */
function refLink(repoURL: string, ref: string): string {
  const name = refShortName(ref);
  const kind = ref.startsWith('refs/heads/') ? 'branch' : ref.startsWith('refs/tags/') ? 'tag' : 'commit';
  return htmlLink(`${repoURL}/src/${kind}/${pathEscapeSegments(name)}`, name);
}

function matrixConvertor(msgtype: string): Convertor<MatrixMessage> {
  const message = (text: string, commits: JsonObject[] = []): MatrixMessage => ({
    body: plainBody(text),
    msgtype,
    format: 'org.matrix.custom.html',
    formatted_body: text,
    ...(commits.length > 0 ? { 'io.gitea.commits': commits } : {}),
  });
  return {
    create: (p) => message(`[${repoLink(repoOf(p), htmlLink)}:${refLink(str(repoOf(p), 'html_url'), str(p, 'ref'))}] ${str(p, 'ref_type')} created by ${login(obj(p, 'sender'))}`),
    delete: (p) => message(`[${repoLink(repoOf(p), htmlLink)}:${refShortName(str(p, 'ref'))}] ${str(p, 'ref_type')} deleted by ${login(obj(p, 'sender'))}`),
    fork: (p) => message(`${repoLink(obj(p, 'forkee'), htmlLink)} is forked to ${repoLink(repoOf(p), htmlLink)}`),
    push: (p) => {
      const total = num(p, 'total_commits');
      const repo = repoOf(p);
      const head = `[${repoLink(repo, htmlLink)}] ${login(obj(p, 'pusher'))} pushed ${total === 1 ? '1 commit' : `${total} commits`} to ${refLink(str(repo, 'html_url'), str(p, 'ref'))}:<br>`;
      const commits = objects(p, 'commits');
      const lines = commits.map((c) => `${htmlLink(str(c, 'url'), shortId(c))}: ${str(c, 'message')} - ${str(c, 'author', 'name')}`);
      return message(head + lines.join('<br>'), commits);
    },
    issue: (p) => message(issueOrPullText(p, htmlLink, true).text),
    issueComment: (p) => message(commentText(p, htmlLink, true).text),
    pullRequest: (p) => message(issueOrPullText(p, htmlLink, true).text),
    review: (p, eventType) => {
      if (str(p, 'action') !== 'reviewed') return message('');
      const titleLink = htmlLink(str(p, 'pull_request', 'html_url'), `#${str(p, 'number')} ${str(p, 'pull_request', 'title')}`);
      return message(`[${repoLink(repoOf(p), htmlLink)}] Pull request review ${reviewAction(eventType)}: ${titleLink} by ${senderLink(p, htmlLink)}`);
    },
    repository: (p) => {
      const action = str(p, 'action');
      return message(action === 'created' || action === 'deleted' ? `[${repoLink(repoOf(p), htmlLink)}] Repository ${action} by ${senderLink(p, htmlLink)}` : '');
    },
    release: (p) => message(releaseText(p, htmlLink, true).text),
    wiki: (p) => message(wikiText(p, htmlLink, true).text),
    status: (p) => {
      const link = htmlLink(str(p, 'target_url'), `${str(p, 'context')} [${str(p, 'sha').slice(0, 10)}]`);
      return message(`Commit Status changed: ${link} - ${str(p, 'description')}`);
    },
  };
}

export const renderMatrix: Renderer = (hook, content) => {
  const body = marshalIndent(convert(matrixConvertor(MESSAGE_TYPES[hook.meta['message_type'] ?? ''] ?? ''), content));
  const size = Buffer.byteLength(body);
  if (size >= SIZE_LIMIT) throw new Error(`matrix payload size ${size} > ${SIZE_LIMIT}`);
  return { url: `${hook.url}/${sha1Hex(body)}`, method: 'PUT', contentType: 'application/json', body };
};

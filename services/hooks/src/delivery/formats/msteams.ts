/** The msteams type (services/webhook/msteams.go): a legacy `MessageCard` with facts and a "View in Gitea" button. */
import {
  type Convertor,
  type JsonObject,
  COLORS,
  commentText,
  convert,
  forkTitle,
  hexColor,
  issueOrPullText,
  jsonRequest,
  markdownCommitLine,
  login,
  noneLink,
  num,
  obj,
  objects,
  pushTitle,
  pushTitleLink,
  refChangeTitle,
  refShortName,
  releaseText,
  repoOf,
  repositoryTitle,
  reviewColor,
  reviewTitle,
  srcURL,
  statusText,
  str,
  wikiText,
  wikiURL,
} from './text';
import type { GiteaPayload, Renderer } from './types';

interface Fact {
  name: string;
  value: string;
}

interface MSTeamsMessage {
  '@type': string;
  '@context': string;
  themeColor: string;
  title: string;
  summary: string;
  sections: { activityTitle: string; activitySubtitle: string; activityImage: string; facts: Fact[]; text: string }[];
  potentialAction: { '@type': string; name: string; targets: { os: string; uri: string }[] }[];
}

/** createMSTeamsPayload: the repository fact first, then the event's own fact. */
function card(p: GiteaPayload, title: string, text: string, target: string, color: number, fact: Fact | null): MSTeamsMessage {
  const repo: JsonObject = repoOf(p);
  const sender = obj(p, 'sender');
  const facts: Fact[] = [{ name: 'Repository:', value: str(repo, 'full_name') }];
  if (fact !== null) facts.push(fact);
  return {
    '@type': 'MessageCard',
    '@context': 'https://schema.org/extensions',
    themeColor: hexColor(color),
    title,
    summary: title,
    sections: [{ activityTitle: str(sender, 'full_name'), activitySubtitle: login(sender), activityImage: str(sender, 'avatar_url'), facts, text }],
    potentialAction: [{ '@type': 'OpenUri', name: 'View in Gitea', targets: [{ os: 'default', uri: target }] }],
  };
}

function refChange(p: GiteaPayload, verb: 'created' | 'deleted', color: number): MSTeamsMessage {
  const name = refShortName(str(p, 'ref'));
  return card(p, refChangeTitle(p, verb), '', srcURL(str(repoOf(p), 'html_url'), str(p, 'ref')), color, { name: `${str(p, 'ref_type')}:`, value: name });
}

const msteamsConvertor: Convertor<MSTeamsMessage> = {
  create: (p) => refChange(p, 'created', COLORS.green),
  delete: (p) => refChange(p, 'deleted', COLORS.yellow),
  fork: (p) => card(p, forkTitle(p), '', str(repoOf(p), 'html_url'), COLORS.green, { name: 'Forkee:', value: str(p, 'forkee', 'full_name') }),
  push: (p) => {
    const lines = objects(p, 'commits').map(markdownCommitLine);
    return card(p, pushTitle(p), lines.join('\n\n'), pushTitleLink(p), COLORS.green, { name: 'Commit count:', value: String(num(p, 'total_commits')) });
  },
  // Gitea shows the issue's database id under "Issue #:", not its number.
  issue: (p) => {
    const info = issueOrPullText(p, noneLink, false);
    return card(p, info.text, info.extra, str(p, 'issue', 'html_url'), info.color, { name: 'Issue #:', value: String(num(p, 'issue', 'id')) });
  },
  issueComment: (p) => {
    const info = commentText(p, noneLink, false);
    return card(p, info.text, info.extra, str(p, 'comment', 'html_url'), info.color, { name: 'Issue #:', value: String(num(p, 'issue', 'id')) });
  },
  pullRequest: (p) => {
    const info = issueOrPullText(p, noneLink, false);
    return card(p, info.text, info.extra, str(p, 'pull_request', 'html_url'), info.color, { name: 'Pull request #:', value: String(num(p, 'pull_request', 'id')) });
  },
  review: (p, eventType) => {
    const reviewed = str(p, 'action') === 'reviewed';
    return card(p, reviewTitle(p, eventType), reviewed ? str(p, 'review', 'content') : '', str(p, 'pull_request', 'html_url'), reviewed ? reviewColor(eventType) : 0, {
      name: 'Pull request #:',
      value: String(num(p, 'pull_request', 'id')),
    });
  },
  repository: (p) => {
    const action = str(p, 'action');
    const color = action === 'created' ? COLORS.green : action === 'deleted' ? COLORS.yellow : 0;
    return card(p, repositoryTitle(p), '', action === 'created' ? str(repoOf(p), 'html_url') : '', color, null);
  },
  release: (p) => {
    const info = releaseText(p, noneLink, false);
    return card(p, info.text, '', str(p, 'release', 'html_url'), info.color, { name: 'Tag:', value: str(p, 'release', 'tag_name') });
  },
  wiki: (p) => {
    const info = wikiText(p, noneLink, false);
    return card(p, info.text, '', wikiURL(p), info.color, { name: 'Repository:', value: str(repoOf(p), 'full_name') });
  },
  status: (p) => {
    const info = statusText(p, noneLink, false);
    return card(p, info.text, '', str(p, 'target_url'), info.color, { name: 'CommitStatus:', value: str(p, 'context') });
  },
};

export const renderMSTeams: Renderer = (hook, content) => jsonRequest(hook, convert(msteamsConvertor, content));

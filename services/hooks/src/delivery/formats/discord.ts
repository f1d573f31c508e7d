/** The discord type (services/webhook/discord.go): one embed per message, titled like Gitea's texts, the sender as author. */
import {
  type Convertor,
  COLORS,
  commentText,
  convert,
  forkTitle,
  issueOrPullText,
  jsonRequest,
  login,
  noneLink,
  obj,
  objects,
  pushTitle,
  pushTitleLink,
  refChangeTitle,
  releaseText,
  repoOf,
  repositoryTitle,
  reviewColor,
  reviewTitle,
  shortId,
  srcURL,
  statusText,
  str,
  userURL,
  wikiText,
  wikiURL,
} from './text';
import type { GiteaPayload, Renderer } from './types';

interface DiscordEmbed {
  title: string;
  description: string;
  url: string;
  color: number;
  footer: { text: string };
  author: { name: string; url: string; icon_url: string };
  fields: null;
}

interface DiscordMessage {
  wait: boolean;
  content: string;
  username: string;
  /** Left out when empty (omitempty). */
  avatar_url?: string;
  tts: boolean;
  embeds: DiscordEmbed[];
}

/** A commit line's summary: the first line, cut to 47 characters and `...` past 50 (as GitHub does). */
function commitSummary(message: string): string {
  const first = (message.split('\n')[0] ?? '').replace(/\r+$/, '');
  const chars = [...first];
  return chars.length > 50 ? `${chars.slice(0, 47).join('')}...` : first;
}

function discordConvertor(meta: Readonly<Record<string, string>>): Convertor<DiscordMessage> {
  const message = (p: GiteaPayload, title: string, description: string, url: string, color: number): DiscordMessage => {
    const sender = obj(p, 'sender');
    const avatar = meta['icon_url'] ?? '';
    return {
      wait: false,
      content: '',
      username: meta['username'] ?? '',
      ...(avatar !== '' ? { avatar_url: avatar } : {}),
      tts: false,
      embeds: [
        {
          title,
          description,
          url,
          color,
          footer: { text: '' },
          author: { name: login(sender), url: userURL(sender), icon_url: str(sender, 'avatar_url') },
          fields: null,
        },
      ],
    };
  };
  return {
    create: (p) => message(p, refChangeTitle(p, 'created'), '', srcURL(str(repoOf(p), 'html_url'), str(p, 'ref')), COLORS.green),
    delete: (p) => message(p, refChangeTitle(p, 'deleted'), '', srcURL(str(repoOf(p), 'html_url'), str(p, 'ref')), COLORS.red),
    fork: (p) => message(p, forkTitle(p), '', str(repoOf(p), 'html_url'), COLORS.green),
    push: (p) => {
      const lines = objects(p, 'commits').map((c) => `[${shortId(c)}](${str(c, 'url')}) ${commitSummary(str(c, 'message'))} - ${str(c, 'author', 'name')}`);
      return message(p, pushTitle(p), lines.join('\n'), pushTitleLink(p), COLORS.green);
    },
    issue: (p) => {
      const info = issueOrPullText(p, noneLink, false);
      return message(p, info.text, info.extra, str(p, 'issue', 'html_url'), info.color);
    },
    issueComment: (p) => {
      const info = commentText(p, noneLink, false);
      return message(p, info.text, info.extra, str(p, 'comment', 'html_url'), info.color);
    },
    pullRequest: (p) => {
      const info = issueOrPullText(p, noneLink, false);
      return message(p, info.text, info.extra, str(p, 'pull_request', 'html_url'), info.color);
    },
    review: (p, eventType) => {
      if (str(p, 'action') !== 'reviewed') return message(p, '', '', str(p, 'pull_request', 'html_url'), 0);
      return message(p, reviewTitle(p, eventType), str(p, 'review', 'content'), str(p, 'pull_request', 'html_url'), reviewColor(eventType));
    },
    repository: (p) => {
      const created = str(p, 'action') === 'created';
      const color = created ? COLORS.green : str(p, 'action') === 'deleted' ? COLORS.red : 0;
      return message(p, repositoryTitle(p), '', created ? str(repoOf(p), 'html_url') : '', color);
    },
    release: (p) => {
      const info = releaseText(p, noneLink, false);
      return message(p, info.text, str(p, 'release', 'body'), str(p, 'release', 'html_url'), info.color);
    },
    wiki: (p) => {
      const info = wikiText(p, noneLink, false);
      return message(p, info.text, str(p, 'action') !== 'deleted' ? str(p, 'comment') : '', wikiURL(p), info.color);
    },
    status: (p) => {
      const info = statusText(p, noneLink, false);
      return message(p, info.text, '', str(p, 'target_url'), info.color);
    },
  };
}

export const renderDiscord: Renderer = (hook, content) => jsonRequest(hook, convert(discordConvertor(hook.meta), content));

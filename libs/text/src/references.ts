/**
 * Issue references as Gitea's modules/references finds them: `#N` or `owner/repo#N`, preceded by a space, an opening
 * bracket or the start of the text, and followed by a space, a closing bracket, punctuation and a space, or the end.
 * A reference carries an action when a close keyword ("Fixes #12", "closes: #3", "(resolved #7") or a reopen keyword
 * ("reopens #4") stands right before it: the keyword preceded by a space, an opening bracket or the start, and
 * followed by an optional colon and one space. Keywords match ignoring case. Markdown text (a body) is read without
 * its code (markdown-code.ts): code blocks and inline code spans name nothing.
 *
 * Linear in the text: the reference pattern can only start after a boundary character, and the runs it scans from
 * different starts do not overlap; the keyword test reads a bounded slice before each reference.
 */
import { withoutCode } from './markdown-code';

export type ReferenceAction = 'close' | 'reopen';

export interface IssueReference {
  /** Empty for `#N` (the repository the text belongs to). */
  owner: string;
  repo: string;
  index: number;
  /** Undefined for a plain reference. */
  action?: ReferenceAction;
}

export interface ActionReference extends IssueReference {
  action: ReferenceAction;
}

export interface ReferenceKeywords {
  close: readonly string[];
  reopen: readonly string[];
}

/** At most this many references of one text are read (a body is bounded; this bounds the work on it). */
const MAX_REFERENCES = 100;

const REFERENCE = /(?<=^|[\s([])(?:([0-9a-zA-Z\-_.]+)\/([0-9a-zA-Z\-_.]+))?#([0-9]+)(?=$|[\s)\]]|[:;,.?!](?:\s|$))/g;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function keywordPattern(keywords: readonly string[]): RegExp | undefined {
  const words = keywords.filter((word) => word !== '');
  return words.length === 0 ? undefined : new RegExp(`(?:\\s|^|\\(|\\[)(?:${words.map(escapeRegExp).join('|')}):? $`, 'i');
}

/** Every reference of `text` in order of appearance, with its action (`markdown`: a body, read without its code). */
export function issueReferences(text: string, keywords: ReferenceKeywords, markdown = false): IssueReference[] {
  const close = keywordPattern(keywords.close);
  const reopen = keywordPattern(keywords.reopen);
  const content = markdown ? withoutCode(text) : text;
  // The keyword, its colon and space, and the character before it: enough text before a reference to decide.
  const reach = Math.max(0, ...keywords.close.map((word) => word.length), ...keywords.reopen.map((word) => word.length)) + 3;
  const found: IssueReference[] = [];
  for (const match of content.matchAll(REFERENCE)) {
    if (found.length >= MAX_REFERENCES) break;
    const at = match.index ?? 0;
    const from = Math.max(0, at - reach);
    // A character that is no boundary stands for the text cut off, so `^` only matches at the real start.
    const before = (from > 0 ? '\u0000' : '') + content.slice(from, at);
    const action: ReferenceAction | undefined = close?.test(before) === true ? 'close' : reopen?.test(before) === true ? 'reopen' : undefined;
    const index = Number(match[3]);
    if (!Number.isSafeInteger(index) || index <= 0) continue;
    found.push({ owner: match[1] ?? '', repo: match[2] ?? '', index, ...(action === undefined ? {} : { action }) });
  }
  return found;
}

/** The references of `text` that carry an action. */
export function actionReferences(text: string, keywords: ReferenceKeywords, markdown = false): ActionReference[] {
  return issueReferences(text, keywords, markdown).filter((ref): ref is ActionReference => ref.action !== undefined);
}

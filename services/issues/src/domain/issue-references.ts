/**
 * Issue references as Gitea's modules/references finds them: `#N` or `owner/repo#N`, preceded by a space, an opening
 * bracket or the start of the text, and followed by a space, a closing bracket, punctuation and a space, or the end.
 * A reference carries an action when a close keyword ("Fixes #12", "closes: #3", "(resolved #7") or a reopen keyword
 * ("reopens #4") stands right before it: the keyword preceded by a space, an opening bracket or the start, and
 * followed by an optional colon and one space. Keywords match ignoring case. Markdown text (a body) is read without
 * its code: fenced blocks and inline code spans name nothing.
 */

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
/** A fenced code block, up to its closing fence or the end of the text (every match consumes what it scanned). */
const FENCED_CODE = /^ {0,3}(`{3,}|~{3,})[^\n]*(?:\n[\s\S]*?(?<=\n) {0,3}\1[`~]*[ \t]*(?=\n|$)|[\s\S]*)/gm;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function keywordPattern(keywords: readonly string[]): RegExp | undefined {
  const words = keywords.filter((word) => word !== '');
  return words.length === 0 ? undefined : new RegExp(`(?:\\s|^|\\(|\\[)(?:${words.map(escapeRegExp).join('|')}):? $`, 'i');
}

const blank = (code: string) => code.replace(/[^\n]/g, ' ');

/**
 * Code spans blanked: a run of backticks opens one that the next run of the same length closes (CommonMark); a run
 * without one is literal. One pass over the runs, each length's candidates taken in order, so any text is linear.
 */
function withoutCodeSpans(text: string): string {
  const runs = [...text.matchAll(/`+/g)].map((match) => ({ at: match.index ?? 0, length: match[0].length }));
  const byLength = new Map<number, number[]>();
  runs.forEach((run, i) => {
    const list = byLength.get(run.length);
    if (list === undefined) byLength.set(run.length, [i]);
    else list.push(i);
  });
  const next = new Map<number, number>();
  let out = '';
  let copied = 0;
  for (let i = 0; i < runs.length; ) {
    const open = runs[i];
    const candidates = byLength.get(open.length) ?? [];
    let c = next.get(open.length) ?? 0;
    while (c < candidates.length && candidates[c] <= i) c += 1;
    next.set(open.length, c);
    if (c >= candidates.length) {
      i += 1;
      continue;
    }
    const close = runs[candidates[c]];
    const end = close.at + close.length;
    out += text.slice(copied, open.at) + blank(text.slice(open.at, end));
    copied = end;
    i = candidates[c] + 1;
  }
  return out + text.slice(copied);
}

/** Markdown without its code, each removed character replaced by a space so nothing joins across it. */
export function withoutCode(markdown: string): string {
  return withoutCodeSpans(markdown.replace(FENCED_CODE, blank));
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

/**
 * `@name` mentions in an issue or comment body, as Gitea finds them (modules/references/references.go
 * FindAllMentionsMarkdown): its mention pattern, run over the text with code left out (Gitea strips the markdown
 * first, so a mention inside a code block or code span is none: markdown-code.ts).
 *
 * Linear in the body: the mention pattern is tried only around an `@`, and the name it scans stops at the next
 * character that cannot be in a name (another `@` included), so no character is scanned from two places.
 */
import { withoutCode } from './markdown-code';

/**
 * Gitea's mentionPattern: a mention starts the text or follows white space, `(` or `[`, and ends the text or is
 * followed by white space, punctuation then white space or the end, `'`, `)` or `]`. `@org/team` mentions are
 * matched as Gitea matches them, so that they are not misread as `@org`; callers leave them out (teams are not
 * resolved).
 */
const MENTION = /(?:\s|^|\(|\[)(@[-\w][-.\w]*?|@[-\w][-.\w]*?\/[-\w][-.\w]*?)(?:\s|$|[:,;.?!](?:\s|$)|'|\)|\])/y;

/** At most this many distinct names of one body are looked up (a body naming more is not a reason to fail). */
export const MAX_MENTIONS_PER_BODY = 50;

/**
 * The distinct user names mentioned in `body`, in order of first appearance, compared case-insensitively (the first
 * spelling is kept), at most MAX_MENTIONS_PER_BODY. `@org/team` mentions are left out.
 */
export function findMentionedNames(body: string): string[] {
  const text = withoutCode(body);
  const names: string[] = [];
  const seen = new Set<string>();
  // Gitea (FindAllMentionsBytes) goes on searching right after each mention, not after its terminator, so that the
  // white space between two mentions counts for both.
  for (let from = 0; from < text.length && names.length < MAX_MENTIONS_PER_BODY; ) {
    const found = nextMention(text, from);
    if (found === undefined) break;
    from = found.end;
    const name = found.mention.slice(1);
    if (name.includes('/') || seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    names.push(name);
  }
  return names;
}

/** The first mention at or after `from`; `end` is where the mention itself ends. */
function nextMention(text: string, from: number): { mention: string; end: number } | undefined {
  // A match starts at the text's start (`^`, as in Go's search) or one character before an '@': the sticky pattern
  // is tried only there.
  for (let at = text.indexOf('@', from); at >= 0; at = text.indexOf('@', at + 1)) {
    const start = at === 0 ? 0 : at - 1;
    if (start < from) continue;
    MENTION.lastIndex = start;
    const match = MENTION.exec(text);
    if (match === null) continue;
    const mention = match[1];
    return { mention, end: at + mention.length };
  }
  return undefined;
}

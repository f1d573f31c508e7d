/**
 * `@name` mentions in an issue or comment body, as Gitea finds them (modules/references/references.go
 * FindAllMentionsMarkdown): its mention pattern, run over the text with code left out (Gitea strips the markdown
 * first, so a mention inside a code block or code span is none).
 */

/**
 * Gitea's mentionPattern: a mention starts the text or follows white space, `(` or `[`, and ends the text or is
 * followed by white space, punctuation then white space or the end, `'`, `)` or `]`. `@org/team` mentions are
 * matched as Gitea matches them, so that they are not misread as `@org`; callers leave them out (teams are not
 * resolved).
 */
const MENTION = /(?:\s|^|\(|\[)(@[-\w][-.\w]*?|@[-\w][-.\w]*?\/[-\w][-.\w]*?)(?:\s|$|[:,;.?!](?:\s|$)|'|\)|\])/y;

/** At most this many distinct names of one body are looked up (a body naming more is not a reason to fail). */
export const MAX_MENTIONS_PER_BODY = 50;

// Fenced code blocks (``` or ~~~, to the closing fence or the end) and code spans (matching backtick runs).
const FENCED_CODE = /^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:\n {0,3}\1[^\n]*(?=\n|$)|$)/gm;
const CODE_SPAN = /(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g;
const INDENTED_CODE = /^(?: {4}|\t)[^\n]*$/gm;

/** The text a mention may be in: the body without code blocks and code spans (each replaced by a space). */
function withoutCode(body: string): string {
  return body.replace(FENCED_CODE, ' ').replace(INDENTED_CODE, ' ').replace(CODE_SPAN, ' ');
}

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

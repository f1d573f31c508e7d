/**
 * Linear-time tools for user text with Gitea's semantics: globs (branch rule names, protected file patterns, merge
 * rules), protected tag patterns (globs, or RE2 regular expressions), markdown without its code, `@` mentions,
 * issue references and their closing keywords. Every one runs in time linear in the text (a glob: in the text times the pattern), so a hostile body or branch name cannot block a
 * service.
 */
export { type GlobOptions, PatternSyntaxError, globMatcher, isGlobPattern } from './glob';
export { isTagRegexPattern, tagPatternMatcher } from './tag-pattern';
export { withoutCode } from './markdown-code';
export { MAX_MENTIONS_PER_BODY, findMentionedNames } from './mentions';
export { type ActionReference, type IssueReference, type ReferenceAction, type ReferenceKeywords, actionReferences, issueReferences } from './references';

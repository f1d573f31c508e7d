/**
 * Protected tags on push (Gitea's routers/private/hook_pre_receive.go preReceiveTag, with
 * models/git/protected_tag.go IsUserAllowedToControlTag): creating, moving or deleting a tag that matches a rule
 * is refused unless one of the rules it matches allows the pusher (repos decided that per rule).
 */
import type { TagRule } from '@cairn/proto/cairn/git/v1/git_service';
import { tagPatternMatcher } from '@cairn/text';

/** Gitea's refusal of the update of `tagName`, or undefined when the pusher may control it. */
export function tagRefusal(rules: readonly TagRule[], tagName: string): string | undefined {
  const matching = rules.filter((rule) => tagPatternMatcher(rule.namePattern)(tagName));
  if (matching.length === 0 || matching.some((rule) => rule.allowed)) return undefined;
  return `Tag ${tagName} is protected`;
}

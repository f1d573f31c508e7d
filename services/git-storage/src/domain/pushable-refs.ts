/**
 * Which refs a user's push may write. Gitea's update hook (cmd/hook.go runHookUpdate) declines pushes to
 * refs/pull/* so that nobody can swap the head a pull request was reviewed, checked and approved on; Cairn goes
 * further and keeps every namespace other than branches and tags for itself (refs/pull, and whatever it adds later).
 * git-storage's own writes (pull request heads, merges, the contents API) move refs directly, never through a push.
 */
import { BRANCH_PREFIX, TAG_PREFIX } from '../git/refs';

/** Prefixes of the refs a push may create, move or delete (push/hook-server.ts writes them into the update hook). */
export const PUSHABLE_REF_PREFIXES: readonly string[] = [BRANCH_PREFIX, TAG_PREFIX];

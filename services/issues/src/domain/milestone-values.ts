/**
 * What a milestone may hold. Gitea trims titles (NewMilestone, UpdateMilestone) and keeps them in a VARCHAR(255)
 * column; here an empty title (Gitea would store one) and a longer one are clear refusals. A state other than
 * "closed" is open, as Gitea reads it.
 */
import { CairnError } from '@cairn/rpc';
import type { MilestoneValues } from '../store/milestones';

export const MILESTONE_TITLE_MAX = 255;

/** The trimmed title, or INVALID_ARGUMENT. */
export function milestoneTitle(input: string): string {
  const title = input.trim();
  if (title === '') throw CairnError.invalid('milestone title is required', { reason: 'milestone_title_required' });
  if ([...title].length > MILESTONE_TITLE_MAX) {
    throw CairnError.invalid(`milestone title is longer than ${MILESTONE_TITLE_MAX} characters`, { reason: 'milestone_title_too_long' });
  }
  return title;
}

export function isClosedState(state: string): boolean {
  return state === 'closed';
}

export function milestoneValues(input: { title: string; description: string; state: string; dueOn: Date | undefined }): MilestoneValues {
  return { title: milestoneTitle(input.title), description: input.description, closed: isClosedState(input.state), dueOn: input.dueOn ?? null };
}

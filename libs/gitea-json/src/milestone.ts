/**
 * issues' milestones → Gitea's `Milestone` (services/convert/issue.go ToAPIMilestone): `closed_at` only when closed,
 * `due_on` only when set.
 */
import { goTime } from '@cairn/http';
import type { Milestone } from '@cairn/proto/cairn/issues/v1/issues_service';

export interface ApiMilestone {
  id: number;
  title: string;
  description: string;
  state: string;
  open_issues: number;
  closed_issues: number;
  created_at: string;
  updated_at: string | null;
  closed_at: string | null;
  due_on: string | null;
}

export function toApiMilestone(milestone: Milestone): ApiMilestone {
  return {
    id: milestone.id,
    title: milestone.title,
    description: milestone.description,
    state: milestone.state,
    open_issues: milestone.openIssues,
    closed_issues: milestone.closedIssues,
    created_at: goTime(milestone.created),
    updated_at: milestone.updated === undefined ? null : goTime(milestone.updated),
    closed_at: milestone.state === 'closed' && milestone.closedAt !== undefined ? goTime(milestone.closedAt) : null,
    due_on: milestone.dueOn === undefined ? null : goTime(milestone.dueOn),
  };
}

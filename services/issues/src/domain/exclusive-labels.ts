/**
 * Exclusive (scoped) labels, as Gitea keeps them (models/issues/label.go ExclusiveScope, issue_label.go
 * RemoveDuplicateExclusiveLabels): an exclusive label named `scope/name` belongs to `scope` (the text before the
 * last '/', neither empty nor the whole name), and an issue carries at most one label of each scope.
 */

export interface ScopedLabel {
  id: number;
  name: string;
  exclusive: boolean;
}

/** The label's scope; "" when it is not exclusive or its name has no usable '/'. */
export function exclusiveScope(label: ScopedLabel): string {
  if (!label.exclusive) return '';
  const last = label.name.lastIndexOf('/');
  if (last <= 0 || last === label.name.length - 1) return '';
  return label.name.slice(0, last);
}

/** `labels` with only the last one of each scope kept (later labels win), order otherwise unchanged. */
export function keepLastOfEachScope<T extends ScopedLabel>(labels: readonly T[]): T[] {
  return labels.filter((label, at) => {
    const scope = exclusiveScope(label);
    return scope === '' || !labels.slice(at + 1).some((later) => exclusiveScope(later) === scope);
  });
}

/**
 * The labels an issue carries after `adding` (in order) to `current`: a label already there changes nothing; a new
 * one of a scope replaces the label of that scope (Gitea's newIssueLabels with
 * RemoveDuplicateExclusiveIssueLabels).
 */
export function labelsAfterAdding<T extends ScopedLabel>(current: readonly T[], adding: readonly T[]): T[] {
  let next = [...current];
  for (const label of adding) {
    if (next.some((present) => present.id === label.id)) continue;
    const scope = exclusiveScope(label);
    if (scope !== '') next = next.filter((present) => exclusiveScope(present) !== scope);
    next.push(label);
  }
  return next;
}

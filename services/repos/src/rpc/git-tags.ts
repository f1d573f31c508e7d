/** What repos reads of git-storage's tags. */
import { CairnError, Code } from '@cairn/rpc';
import type { ReposContext } from './context';

/** The commit the tag points at (peeled); undefined when there is no such tag. */
export async function tagCommit(context: ReposContext, repository: { storage: string; repoId: number }, name: string): Promise<string | undefined> {
  try {
    const { tag } = await context.git.refs.getTag({ repository, name });
    return tag?.commit?.sha ?? '';
  } catch (error) {
    if (error instanceof CairnError && error.code === Code.NOT_FOUND) return undefined;
    throw error;
  }
}

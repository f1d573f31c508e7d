/**
 * Scaffolding while the issues service is being built: a service whose every method answers UNIMPLEMENTED. Each
 * area's file replaces it with its real implementation; this file goes when the last one does.
 */
import { type AsyncServiceOf, CairnError, Code } from '@cairn/rpc';

export function notBuiltYet<D extends object>(definition: D): AsyncServiceOf<D> {
  const methods = Object.fromEntries(
    Object.keys(definition).map((name) => [
      name,
      async () => {
        throw new CairnError(Code.UNIMPLEMENTED, `${name} is not built yet`);
      },
    ]),
  );
  return methods as unknown as AsyncServiceOf<D>;
}

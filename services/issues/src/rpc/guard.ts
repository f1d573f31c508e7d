/** Runs a handler's body so that every failure leaves it as a CairnError, database errors included. */
import { toCairnError } from '@cairn/db';

export async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toCairnError(error);
  }
}

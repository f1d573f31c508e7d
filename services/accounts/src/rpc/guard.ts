/** Runs a handler's body so that every failure leaves it as a CairnError, database errors included. */
import { toAccountsError, type ConflictSubject } from '../store/errors';

export async function guard<T>(work: () => Promise<T>, subject?: ConflictSubject): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toAccountsError(error, subject);
  }
}

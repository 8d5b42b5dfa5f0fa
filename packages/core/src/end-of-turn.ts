/**
 * DataLoader options shared by the request path's batches (docs/architecture.md "Batching per event-loop turn"):
 * no cache, and the batch runs at the end of the current event-loop turn, so that requests that arrived on other
 * sockets meanwhile join it.
 */
export const endOfTurn = { cache: false, batchScheduleFn: (dispatch: () => void) => setImmediate(dispatch) };

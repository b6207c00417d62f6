import { randomUUID } from 'node:crypto';
import { toError } from '@anytool/core/internal';
import type { McpStore } from '../store/store.js';

/** The channel on which instances of one endpoint say their tool list changed. */
const TOOLS_CHANGED_CHANNEL = 'tools/list_changed';

/**
 * Fans `tools/list_changed` out across the instances serving one endpoint: when
 * this instance's tools change it tells the others through the store, and when
 * another instance says so, `notifyHere` tells the clients connected here (their
 * streams may sit on any instance). Resolves with a function that stops it.
 */
export async function fanOutToolChanges(
  store: McpStore,
  onLocalChange: (listener: () => void) => () => void,
  notifyHere: () => void,
  onError: ((error: Error) => void) | undefined,
): Promise<() => Promise<void>> {
  const instance = randomUUID();
  const report = (error: unknown): void => onError?.(toError(error));
  const unsubscribe = await store.subscribe(TOOLS_CHANGED_CHANNEL, (from) => {
    if (from !== instance) notifyHere();
  });
  const stopListening = onLocalChange(() => void store.publish(TOOLS_CHANGED_CHANNEL, instance).catch(report));
  return async () => {
    stopListening();
    await unsubscribe().catch(report);
  };
}

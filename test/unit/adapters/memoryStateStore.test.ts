// The in-memory fake against the StateStore contract, so pipeline unit tests can trust it to
// behave like the DynamoDB store.
import { stateStoreContract } from '../../support/stateStoreContract.ts';
import { MemoryStateStore } from '../../support/fakes/memoryStateStore.ts';

stateStoreContract('MemoryStateStore', async (clock) => new MemoryStateStore({ clock }));

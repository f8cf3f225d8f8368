// Starts an on-demand watch-proxy: an asynchronous Invoke of its function with the lease generation
// it holds (shared/watch/watcherDemand.ts). The Lambda client is imported on first launch, so
// reconcile's cold start does not load it.
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { WatcherLauncher } from '../../ports.ts';

/** What the watch-proxy function receives when launched on demand. */
export interface WatcherLaunchEvent {
  watcherGeneration: number;
}

export class LambdaWatcherLauncher implements WatcherLauncher {
  private readonly functionName: string;
  private client: LambdaClient | undefined;

  /** `client`: for tests; the default honours AWS_ENDPOINT_URL(_LAMBDA). */
  constructor(functionName: string, client?: LambdaClient) {
    this.functionName = functionName;
    this.client = client;
  }

  async launch(generation: number): Promise<void> {
    const sdk = await import('@aws-sdk/client-lambda');
    this.client ??= new sdk.LambdaClient({});
    const event: WatcherLaunchEvent = { watcherGeneration: generation };
    await this.client.send(new sdk.InvokeCommand({ FunctionName: this.functionName, InvocationType: 'Event', Payload: JSON.stringify(event) }));
  }
}

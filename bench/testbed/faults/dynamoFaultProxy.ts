// A fault-injecting proxy in front of dynalite, with DynamoDB's own JSON error shapes (AWS JSON 1.0:
// `__type` and `message`, content type application/x-amz-json-1.0), so the AWS SDK classifies and
// retries them as it would against DynamoDB: ProvisionedThroughputExceededException and
// ThrottlingException (400, throttling), InternalServerError (500), a request that never answers
// (the SDK's requestTimeout gives up on it), and a request that is applied but whose answer is lost.
// Faults are drawn per operation (X-Amz-Target) by a seeded FaultPlan; forwarding is http-proxy-3.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createProxyServer } from 'http-proxy-3';
import { FaultPlan, type FaultTable } from './faultPlan.ts';

export const DYNAMO_FAULTS = ['ProvisionedThroughputExceededException', 'ThrottlingException', 'InternalServerError', 'timeout', 'lostResponse'] as const;
export type DynamoFault = (typeof DYNAMO_FAULTS)[number];
/** Operations as X-Amz-Target names them (GetItem, Query, PutItem, …). */
export type DynamoOp = string;

export interface DynamoFaultProxy {
  endpoint: string;
  plan: FaultPlan<DynamoOp, DynamoFault>;
  stop(): Promise<void>;
}

const SHAPES: Record<'ProvisionedThroughputExceededException' | 'ThrottlingException' | 'InternalServerError', { status: number; type: string; message: string }> = {
  ProvisionedThroughputExceededException: {
    status: 400,
    type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
    message: 'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
  },
  ThrottlingException: { status: 400, type: 'com.amazon.coral.availability#ThrottlingException', message: 'Rate of requests exceeds the allowed throughput.' },
  InternalServerError: { status: 500, type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Internal server error' },
};

const LOST = Symbol('lose the response');

export async function startDynamoFaultProxy(opts: { target: string; seed: number; table: FaultTable<DynamoOp, DynamoFault>; hangMs?: number }): Promise<DynamoFaultProxy> {
  const plan = new FaultPlan<DynamoOp, DynamoFault>(opts.seed, opts.table);
  const proxy = createProxyServer({ target: opts.target });
  const open = new Set<ServerResponse>();
  proxy.on('error', (_err, _req, res) => {
    const out = res as ServerResponse;
    if (typeof out.destroy === 'function') out.destroy();
  });
  proxy.on('proxyRes', (proxyRes, req, res) => {
    if (!(req as unknown as Record<symbol, boolean>)[LOST]) return;
    proxyRes.resume();
    res.destroy();
  });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    open.add(res);
    res.once('close', () => open.delete(res));
    const target = String(req.headers['x-amz-target'] ?? '');
    const op = target.includes('.') ? target.slice(target.indexOf('.') + 1) : target;
    const fault = op === '' ? null : plan.draw(op);
    if (fault === null) return proxy.web(req, res);
    if (fault === 'timeout') {
      req.resume();
      const timer = setTimeout(() => res.destroy(), opts.hangMs ?? 30_000);
      res.once('close', () => clearTimeout(timer));
      return;
    }
    if (fault === 'lostResponse') {
      (req as unknown as Record<symbol, boolean>)[LOST] = true;
      return proxy.web(req, res, { selfHandleResponse: true });
    }
    const shape = SHAPES[fault];
    req.resume();
    const body = JSON.stringify({ __type: shape.type, message: shape.message });
    res.writeHead(shape.status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': `injected-${plan.totalRequests()}` }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    plan,
    async stop() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      proxy.close();
    },
  };
}

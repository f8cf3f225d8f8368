#!/usr/bin/env node
// A tiny local target for the Rollouts in this folder: it answers the http hook and the http gates
// of local mode (`npm start`) and prints every call, so you can watch a release ask before it goes on.
//   node examples/hooks-and-gates/hook-server.mjs            # listens on http://127.0.0.1:8088
//   PORT=9000 node examples/hooks-and-gates/hook-server.mjs
// Routes (every call is a POST with the JSON body the README's "http hook" section shows):
//   /hooks          a pod hook: 200, so the pod's hook succeeds
//   /gates/smoke    a gate that passes: 200 with a value
//   /gates/broken   a gate that says no: 403 with the reason (the release fails; with
//                   rollbackOnFailure it rolls back)
// Anything else is a 404. Ctrl-C stops it.
import { createServer } from 'node:http';

const port = Number(process.env.PORT ?? 8088);

const routes = {
  '/hooks': () => [200, 'ok'],
  '/gates/smoke': () => [200, 'smoke test passed: 12/12 requests answered 200'],
  '/gates/broken': () => [403, 'error rate 7% is above 5%'],
};

const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const route = routes[new URL(req.url ?? '/', 'http://localhost').pathname];
    const [status, answer] = route ? route() : [404, `no route ${req.url}`];
    let call = body;
    try {
      const b = JSON.parse(body);
      call = b.type === 'hook' ? `${b.phase} hook on pod ${b.pod} (${b.idempotencyKey})` : `gate ${b.gate ?? ''} check of ${b.releaseId ?? ''} step ${b.step ?? ''}`.trim();
    } catch {
      // Not JSON: printed as it came.
    }
    console.log(`${new Date().toISOString().slice(11, 19)}  ${req.method} ${req.url} → ${status}  ${call}`);
    res.writeHead(status, { 'content-type': 'text/plain' }).end(answer);
  });
});

server.listen(port, '127.0.0.1', () => console.log(`hook server on http://127.0.0.1:${port}/ (Ctrl-C stops it)`));
process.on('SIGINT', () => server.close(() => process.exit(0)));

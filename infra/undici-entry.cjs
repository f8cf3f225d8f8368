// What @kubernetes/client-node imports from undici, for the Lambda bundles only (infra/bundling.ts,
// plugin undici-entry): the modules undici's index exports under these names, without the rest of
// the index (dispatchers, interceptors, mocks, cache stores, WebSocket, EventSource), which esbuild
// cannot drop from a CommonJS package. Each is required on first use: only client-node's Watch (the
// watch-proxy) and its dispatcher use them, so the other functions never evaluate undici (~25 ms of
// a cold start; the requests go through Node's https, shared/adapters/kubernetes/transport.ts).
// Left out: the index's fetch wrapper that appends the caller's stack to a failed fetch's error.
'use strict';
const lazy = (name, load) => Object.defineProperty(module.exports, name, { enumerable: true, get: load });
lazy('Agent', () => require('undici/lib/dispatcher/agent.js'));
lazy('ProxyAgent', () => require('undici/lib/dispatcher/proxy-agent.js'));
lazy('fetch', () => require('undici/lib/web/fetch/index.js').fetch);

// A GET of a raw API path with the KubeConfig's credentials, for what the typed clients cannot
// name: the current resourceVersion of any watched collection (a one-item list), so that an
// on-demand watcher starts from now instead of replaying every object (shared/watch/resourceWatch.ts).
import https from 'node:https';
import http from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { ConfigError } from '../../errors.ts';
import { toKubeError } from './kubeErrors.ts';

const TIMEOUT_MS = 30_000;

export async function rawGet(kc: KubeConfig, path: string, query: Record<string, string>): Promise<unknown> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new ConfigError('kubeconfig has no current cluster');
  const url = new URL(cluster.server.replace(/\/$/, '') + path);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  const options: https.RequestOptions = { method: 'GET', headers: { Accept: 'application/json' }, timeout: TIMEOUT_MS };
  await kc.applyToHTTPSOptions(options);
  const what = `list ${path}`;
  return new Promise((resolve, reject) => {
    const req = (url.protocol === 'http:' ? http : https).request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const code = res.statusCode ?? 0;
        if (code >= 400) {
          let body: unknown = text;
          try { body = JSON.parse(text); } catch { /* not a Status */ }
          reject(toKubeError({ code, body }, what));
        } else resolve(text ? JSON.parse(text) : null);
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${what}: no answer within ${TIMEOUT_MS / 1000} s`)));
    req.on('error', (err) => reject(toKubeError(err, what)));
    req.end();
  });
}

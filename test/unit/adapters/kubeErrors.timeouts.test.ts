// A request that times out, or fails with a numeric code that is not an HTTP status, maps to a
// transient "no answer", never to a terminal HTTP error (regressions the soak, npm run soak, found).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeApiError, toKubeError } from '../../../shared/adapters/kubernetes/kubeErrors.ts';
import { TerminalError } from '../../../shared/errors.ts';

describe('toKubeError: what the soak found', () => {
  it('maps the request deadline (DOMException TimeoutError, code 23) to a transient "no answer", not a terminal "HTTP 23" that made the rollout Degraded', () => {
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    const mapped = toKubeError(timeout, 'strategic patch apps/v1/Deployment shop/web');
    assert.ok(mapped instanceof KubeApiError && !(mapped instanceof TerminalError), mapped.constructor.name);
    assert.equal(mapped.status, 0);
    assert.equal(mapped.message, 'strategic patch apps/v1/Deployment shop/web: The operation was aborted due to timeout');
  });

  it('reads no HTTP status from other numeric codes outside 100-599 either', () => {
    const mapped = toKubeError(Object.assign(new Error('aborted'), { code: 20 }), 'get x');
    assert.ok(mapped instanceof KubeApiError);
    assert.equal((mapped as KubeApiError).status, 0);
  });
});

// The control plane's pod IP range (ControlPlaneOptions.podCidr) is checked before anything starts:
// only POD_CIDR or one /24 of it, the addresses the test bed makes local to this host.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startControlPlane } from '../../../shared/adapters/local/controlPlane.ts';
import { ConfigError } from '../../../shared/errors.ts';

describe('the control plane\'s pod IP range', () => {
  for (const podCidr of ['10.244.0.0/24', '198.18.0.0/20', '198.18.256.0/24', '198.19.1.0/24', '198.18.1.0']) {
    it(`refuses ${podCidr}, naming the field and what it may be, before starting anything`, async () => {
      await assert.rejects(startControlPlane({ podCidr }), (err: unknown) =>
        err instanceof ConfigError && err.message === `podCidr must be 198.18.0.0/16 or a /24 of it (198.18.<0-255>.0/24), got ${podCidr}`);
    });
  }
});

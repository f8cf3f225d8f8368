// The API client's edges: SigV4 signing for a deployed stack (checked the way IAM auth checks it),
// the signing region, how non-API answers become errors, durations on the command line, and the
// --watch loop's end.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiClient, ApiError } from '../../../shared/client/client.ts';
import { formatDuration, parseDuration } from '../../../shared/cli/duration.ts';
import { signingRegion, sigv4Signer } from '../../../shared/cli/sigv4.ts';
import { initialState } from '../../../shared/rollout/state.ts';
import { verifySigV4 } from '../../support/aws/sigv4.ts';
import { awaitingApproval, release } from '../api/apiFixtures.ts';
import { LOCAL_KEY, harness } from './cliHarness.ts';

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const URL_HOST = 'abcdefghij0123456789.lambda-url.eu-west-1.on.aws';

describe('SigV4 for a deployed API (Function URL, IAM auth)', () => {
  test('the region comes from the Function URL host, else AWS_REGION; neither is an error', () => {
    assert.equal(signingRegion(new URL(`https://${URL_HOST}/`), { AWS_REGION: 'us-east-1' }), 'eu-west-1');
    assert.equal(signingRegion(new URL('http://127.0.0.1:9000/'), { AWS_REGION: 'us-east-1' }), 'us-east-1');
    assert.equal(signingRegion(new URL('http://127.0.0.1:9000/'), { AWS_DEFAULT_REGION: 'ap-south-1' }), 'ap-south-1');
    assert.throws(() => signingRegion(new URL('http://127.0.0.1:9000/'), {}), /set AWS_REGION/);
  });

  test('a signed request (with body and query) verifies as IAM would check it, for service lambda', async () => {
    const sign = sigv4Signer('eu-west-1', async () => CREDENTIALS);
    const url = new URL(`https://${URL_HOST}/v1/rollouts/prod/shop/web/release?dryRun=1`);
    const body = JSON.stringify({ images: { app: 'nginx:1.28' } });
    const headers = await sign({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body });
    assert.equal(headers.host, undefined, 'fetch sets Host itself');
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    const verdict = await verifySigV4(
      { method: 'POST', hostname: URL_HOST, port: NaN, rawPath: url.pathname, rawQuery: 'dryRun=1', headers: { ...lower, host: URL_HOST }, body: Buffer.from(body) },
      { [CREDENTIALS.accessKeyId]: CREDENTIALS.secretAccessKey }, 'eu-west-1', new Date(),
    );
    assert.deepEqual(verdict, { ok: true, accessKeyId: CREDENTIALS.accessKeyId });
  });
});

describe('answers that are not the API’s own', () => {
  const client = (status: number, body: string) => new ApiClient({ mode: 'deployed', endpoint: `https://${URL_HOST}/` }, { fetch: async () => new Response(body, { status }) });

  test('a 403 from AWS names the likely causes', async () => {
    await assert.rejects(client(403, '{"Message":"Forbidden"}').get(LOCAL_KEY), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.status, 403);
      assert.equal(err.message, '403 from AWS: Forbidden (check the AWS credentials, the region, and lambda:InvokeFunctionUrl on this function)');
      return true;
    });
  });

  test('a non-JSON error body is quoted, shortened', async () => {
    await assert.rejects(client(502, 'Bad Gateway\n').get(LOCAL_KEY), /^ApiError: the API answered 502: Bad Gateway$/);
  });
});

describe('durations', () => {
  test('kubectl-style durations and plain seconds', () => {
    assert.deepEqual(['30s', '10m', '1h30m', '90', '250ms'].map(parseDuration), [30_000, 600_000, 5_400_000, 90_000, 250]);
    assert.throws(() => parseDuration('soon'), /duration such as 30s/);
    assert.throws(() => parseDuration('0s'), /longer than 0s/);
    assert.deepEqual([600_000, 90_000, 5_400_000].map(formatDuration), ['10m', '1m30s', '1h30m']);
  });
});

describe('rollouts get --watch (not a terminal)', () => {
  test('prints a frame per change and ends by itself once the release it saw has ended', async () => {
    const h = harness();
    await h.seed(awaitingApproval());
    let sleeps = 0;
    h.onSleep = async () => {
      // A few seconds into the watch, the release completes.
      if (++sleeps !== 15) return;
      const current = await h.api.store.load(LOCAL_KEY);
      const done = { ...initialState(), phase: 'Completed' as const, message: 'release r1 completed', stableRevision: 'rev-b', lastRelease: release() };
      await h.api.store.saveState(LOCAL_KEY, { state: done, outbox: { history: [], events: [] } }, current.state.version);
    };
    const r = await h.cli('get', 'web', '--watch');
    assert.equal(r.code, 0, r.err);
    const frames = r.out.split('\nName:').length;
    assert.ok(frames >= 2, `at least the first and the last frame, got ${frames}`);
    assert.match(r.out, /^Status: +‖ Paused$/m);
    assert.match(r.out, /^Status: +✔ Completed\n(.|\n)*$/m);
    assert.ok(!r.out.includes('\x1b['), 'no ANSI codes when stdout is not a terminal');
  });

  test('--timeout ends the watch with a note on stderr', async () => {
    const h = harness();
    await h.seed(awaitingApproval());
    const r = await h.cli('get', 'web', '--watch', '--timeout', '3s');
    assert.equal(r.code, 0);
    assert.equal(r.err, 'stopped watching after 3s (--timeout)\n');
  });
});

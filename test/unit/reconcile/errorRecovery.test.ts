// Every error of ours says what running the same work again can do about it (shared/errors.ts), and
// the reconcile pass acts on that alone: transient → run again later, terminal → Degraded now,
// conflict → again at once; an error that says nothing is the caller's.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StoreUnavailableError, UnprocessedItemsError } from '../../../shared/adapters/dynamodb/metered.ts';
import { KubeApiError, KubeRequestError, InvalidObjectError, toKubeError } from '../../../shared/adapters/kubernetes/kubeErrors.ts';
import { KubeHttpError, RequestDeadlineError } from '../../../shared/adapters/kubernetes/transport.ts';
import {
  ConfigError, ConflictError, ForbiddenError, KindNotServedError, NotFoundError, StaleStateError, TerminalError, TransientError,
  UnauthorizedError, ValidationError, WorkloadClaimedError, recoveryOf, type Recovery,
} from '../../../shared/errors.ts';
import { DeployParameterError } from '../../../infra/parameters.ts';

const cases: [string, unknown, Recovery][] = [
  ['an apiserver 429/5xx', new KubeApiError('get x: HTTP 503', 503, undefined), 'transient'],
  ['a request past its deadline', new RequestDeadlineError('GET /x', 10_000), 'transient'],
  ['DynamoDB still throttled', new StoreUnavailableError('DynamoDB: ThrottlingException'), 'transient'],
  ['unprocessed batch writes', new UnprocessedItemsError('2 writes unprocessed'), 'transient'],
  ['any TransientError', new TransientError('later'), 'transient'],
  ['bad input', new ValidationError([{ path: 'spec', reason: 'required' }]), 'terminal'],
  ['a write the apiserver refuses', new InvalidObjectError('patch x: invalid', [{ path: 'spec', reason: 'invalid' }]), 'terminal'],
  ['a missing permission', new ForbiddenError('forbidden'), 'terminal'],
  ['refused credentials', new UnauthorizedError('unauthorized'), 'terminal'],
  ['a configuration that cannot work', new ConfigError('no token'), 'terminal'],
  ['a deploy parameter', new DeployParameterError('clusters.0.name: required'), 'terminal'],
  ['a kind the cluster does not serve', new KindNotServedError('no CRD'), 'terminal'],
  ['a request of ours the apiserver cannot take', new KubeRequestError('HTTP 405', 405), 'terminal'],
  ['any TerminalError', new TerminalError('never'), 'terminal'],
  ['a lost race', new ConflictError('409'), 'conflict'],
  ['a stale STATE', new StaleStateError('version moved'), 'conflict'],
  ['a workload claimed by another rollout', new WorkloadClaimedError('claimed', 'other'), 'conflict'],
  ['a missing object', new NotFoundError('gone'), 'unknown'],
  ['a raw HTTP answer not yet classified', new KubeHttpError('GET /x', 500, '', undefined), 'unknown'],
  ['an error not of ours', new Error('boom'), 'unknown'],
  ['not even an error', 'boom', 'unknown'],
];

describe('what running again can do, as each error says', () => {
  for (const [what, err, recovery] of cases) {
    test(`${what}: ${recovery}`, () => assert.equal(recoveryOf(err), recovery));
  }

  test('an answer of the apiserver is classified by its status, the deadline as no answer at all', () => {
    assert.equal(recoveryOf(toKubeError(new KubeHttpError('GET /x', 429, '', '2'), 'get x', 2)), 'transient');
    assert.equal(recoveryOf(toKubeError(new KubeHttpError('GET /x', 403, '', undefined), 'get x')), 'terminal');
    assert.equal(recoveryOf(toKubeError(new KubeHttpError('GET /x', 409, '', undefined), 'get x')), 'conflict');
    assert.equal(recoveryOf(toKubeError(new RequestDeadlineError('GET /x', 10_000), 'get x')), 'transient');
  });
});

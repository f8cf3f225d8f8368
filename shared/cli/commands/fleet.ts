// `rollouts fleet …`: FleetRollouts (docs/fleet.md). apply -f, list, get [--watch] (waves × clusters
// with each member's status, step and reason), status, history, and the verbs release [--image],
// approve [--wave], pause, resume, abort, skip CLUSTER.
import type { Command } from 'commander';
import { ApiError } from '../../client/client.ts';
import type { FleetGetResponse } from '../../api/fleetRoutes.ts';
import type { FleetRelease } from '../../fleet/types.ts';
import { isRecord } from '../../json.ts';
import { readDocuments } from '../documents.ts';
import { examplesHelp } from '../help.ts';
import { CliExit, EXIT, type CliIO } from '../io.ts';
import { TARGET_HELP, addOutputOption, describeApiError, withApi, type OutputFlags } from '../options.ts';
import { runtimeOf } from '../runtime.ts';
import { formatTable } from '../table.ts';
import { imageArg } from './release.ts';

interface EndpointFlags {
  endpoint?: string;
}

/** Fleets span clusters: no --cluster or -n to resolve (a deployed target would ask for a cluster). */
function target(flags: EndpointFlags): { namespace: string; cluster: string; endpoint?: string } {
  return { namespace: 'default', cluster: '*', ...(flags.endpoint ? { endpoint: flags.endpoint } : {}) };
}

function withEndpoint(cmd: Command): Command {
  return cmd.option('--endpoint <url>', 'API of a deployed stack (default: $ROLLOUTS_ENDPOINT, else local mode)');
}

/** Phases in which a fleet still moves (get --watch keeps drawing). */
const MOVING = new Set(['Progressing', 'Paused', 'RollingBack']);
const WATCH_INTERVAL_MS = 2000;

export function register(program: Command, io: CliIO): void {
  const fleet = program.command('fleet').description('FleetRollouts: one workload released across clusters, wave by wave');

  withEndpoint(fleet.command('apply').description('create or update FleetRollouts from a YAML/JSON file').requiredOption('-f, --file <fleet.yaml>', 'file with one or more FleetRollout documents'))
    .addHelpText('after', `${TARGET_HELP}\n${examplesHelp([['rollouts fleet apply -f examples/fleet.yaml', 'prints "fleetrollout/web created (clusters: …)"']])}`)
    .action(async (flags: EndpointFlags & { file: string }) => {
      const docs = await readDocuments(flags.file, io);
      await withApi(io, target(flags), async ({ client }) => {
        let failed = 0;
        for (const doc of docs) {
          const where = docs.length > 1 ? `document ${doc.index}: ` : '';
          const name = isRecord(doc.value) && isRecord(doc.value.metadata) && typeof doc.value.metadata.name === 'string' ? doc.value.metadata.name : '';
          if (name === '') {
            io.err(`${where}metadata.name: required\n`);
            failed++;
            continue;
          }
          try {
            const res = await client.fleetApply(name, doc.value);
            io.out(`fleetrollout/${name} ${res.unchanged ? 'unchanged' : res.specVersion === 1 ? 'created' : 'configured'} (clusters: ${res.clusters.join(', ') || 'none'})\n`);
          } catch (err) {
            if (!(err instanceof ApiError) || err.status >= 500) throw err;
            io.err(`${describeApiError(err).split('\n').map((l) => `${where}${l}`).join('\n')}\n`);
            failed++;
          }
        }
        if (failed > 0) throw new CliExit(EXIT.failed, docs.length > 1 ? `${flags.file}: ${failed} of ${docs.length} document(s) not applied` : '');
      });
    });

  addOutputOption(withEndpoint(fleet.command('list').description('list FleetRollouts with their phase and reason')))
    .action((flags: EndpointFlags & OutputFlags) => withApi(io, target(flags), async ({ client }) => {
      const res = await client.fleetList();
      if (flags.output === 'json') return io.out(`${JSON.stringify(res, null, 2)}\n`);
      if (res.fleets.length === 0) return io.out('no fleets\n');
      const rows = res.fleets.map((f) => [f.name, `${f.workload.kind} ${f.workload.namespace}/${f.workload.name}`, f.phase, f.releaseId ?? '-', f.message || '-']);
      io.out(`${formatTable([['NAME', 'WORKLOAD', 'PHASE', 'RELEASE', 'MESSAGE'], ...rows])}\n`);
    }));

  addOutputOption(withEndpoint(fleet.command('get').argument('<name>').description('the fleet release: waves × clusters, each member\'s status, step and reason').option('-w, --watch', 'redraw until the fleet release ends')))
    .action((name: string, flags: EndpointFlags & OutputFlags & { watch?: boolean }) => withApi(io, target(flags), async ({ client }) => {
      const rt = runtimeOf(io);
      if (!flags.watch) {
        const res = await client.fleetGet(name);
        return io.out(flags.output === 'json' ? `${JSON.stringify(res, null, 2)}\n` : drawFleet(res));
      }
      const stop = new AbortController();
      const off = rt.onInterrupt(() => stop.abort());
      try {
        let last = '';
        for (;;) {
          const res = await client.fleetGet(name);
          const frame = flags.output === 'json' ? `${JSON.stringify(res)}\n` : drawFleet(res);
          if (frame !== last) io.out(rt.isTTY ? `\x1b[H\x1b[2J${frame}` : `${frame}\n`);
          last = frame;
          if (!MOVING.has(res.state.phase) || stop.signal.aborted) return;
          await rt.sleep(WATCH_INTERVAL_MS, stop.signal);
          if (stop.signal.aborted) return;
        }
      } finally {
        off();
      }
    }));

  withEndpoint(fleet.command('status').argument('<name>').description('one line: the fleet\'s phase and what it waits on'))
    .action((name: string, flags: EndpointFlags) => withApi(io, target(flags), async ({ client }) => {
      const res = await client.fleetGet(name);
      io.out(`fleet/${name}: ${res.state.phase}${res.state.message ? `: ${res.state.message}` : ''}\n`);
    }));

  addOutputOption(withEndpoint(fleet.command('history').argument('<name>').description('the fleet\'s transitions, oldest first')))
    .action((name: string, flags: EndpointFlags & OutputFlags) => withApi(io, target(flags), async ({ client }) => {
      const res = await client.fleetHistory(name);
      if (flags.output === 'json') return io.out(`${JSON.stringify(res, null, 2)}\n`);
      if (res.history.length === 0) return io.out(`no history for fleet ${name}\n`);
      const rows = res.history.map((h) => [h.at, h.releaseId, h.type, h.wave ?? '-', h.cluster ?? '-', h.message]);
      io.out(`${formatTable([['AT', 'RELEASE', 'EVENT', 'WAVE', 'CLUSTER', 'MESSAGE'], ...rows])}\n`);
    }));

  const verb = (name: string, description: string) => withEndpoint(fleet.command(name).argument('<fleet>').description(description).option('--command-id <id>', 'idempotency key: the same id applies once'));

  verb('release', 'start a fleet release: with --image, each cluster\'s template changes when its wave opens; without, each member releases the template it holds (a GitOps sync)')
    .option('--image <container=image>', 'new image of a container (repeat for several)', imageArg)
    .addHelpText('after', examplesHelp([['rollouts fleet release web --image app=nginx:1.28', 'release nginx:1.28 wave by wave'], ['rollouts fleet release web', 'release what a GitOps sync put in every cluster']]))
    .action((name: string, flags: EndpointFlags & { image?: Record<string, string>; commandId?: string }) =>
      send(io, flags, name, 'release', { ...(flags.image ? { images: flags.image } : {}) }, flags.image ? `release requested (${Object.entries(flags.image).map(([c, i]) => `${c}=${i}`).join(', ')})` : 'release of the templates the members hold requested'));
  verb('approve', 'approve the wave waiting for approval').option('--wave <name>', 'the wave you mean (refused if another one waits)')
    .action((name: string, flags: EndpointFlags & { wave?: string; commandId?: string }) => send(io, flags, name, 'approve', flags.wave ? { wave: flags.wave } : {}, `approved${flags.wave ? ` wave ${flags.wave}` : ''}`));
  verb('pause', 'no new member starts and no wave opens; members releasing pause').action((name: string, flags: EndpointFlags & { commandId?: string }) => send(io, flags, name, 'pause', {}, 'pause requested'));
  verb('resume', 'resume what pause paused').action((name: string, flags: EndpointFlags & { commandId?: string }) => send(io, flags, name, 'resume', {}, 'resume requested'));
  verb('abort', 'roll every member released or releasing back, concurrently').action((name: string, flags: EndpointFlags & { commandId?: string }) => send(io, flags, name, 'abort', {}, 'abort requested'));
  withEndpoint(fleet.command('skip').argument('<fleet>').argument('<cluster>').description('a member whose turn has not come has nothing to release in this fleet release').option('--command-id <id>', 'idempotency key'))
    .action((name: string, cluster: string, flags: EndpointFlags & { commandId?: string }) => send(io, flags, name, 'skip', { cluster }, `cluster ${cluster} skipped`));
}

async function send(io: CliIO, flags: EndpointFlags & { commandId?: string }, name: string, verb: string, body: Record<string, unknown>, done: string): Promise<void> {
  await withApi(io, target(flags), async ({ client }) => {
    const res = await client.fleetCommand(name, verb, { ...body, ...(flags.commandId ? { commandId: flags.commandId } : {}) });
    io.out(`fleet/${name}: ${res.duplicate ? `already recorded (command ${res.commandId})` : done}\n`);
  });
}

/** The waves × clusters grid of the fleet release running (or the last one), with each member's own step and reason. */
export function drawFleet(res: FleetGetResponse): string {
  const s = res.state;
  const head = `fleet/${res.fleet}: ${s.phase}${s.message ? `: ${s.message}` : ''}\n`;
  const rel: FleetRelease | null = s.release ?? s.lastRelease;
  const byCluster = new Map(res.members.map((m) => [m.cluster, m]));
  if (rel === null) {
    if (res.members.length === 0) return `${head}no member Rollouts yet\n`;
    const rows = res.members.map((m) => [m.cluster, m.phase, m.step ? `${m.step.index + 1}/${m.step.total}` : '-', m.message || '-']);
    return `${head}${formatTable([['CLUSTER', 'MEMBER', 'STEP', 'REASON'], ...rows])}\n`;
  }
  const rows: string[][] = [];
  rel.waves.forEach((w, i) => {
    for (const m of w.members) {
      const member = byCluster.get(m.cluster);
      rows.push([`${i + 1} ${w.spec.name}`, w.state, m.cluster, m.status, member?.step ? `${member.step.index + 1}/${member.step.total}` : '-', m.note || member?.message || '-']);
    }
    if (w.members.length === 0) rows.push([`${i + 1} ${w.spec.name}`, w.state, '-', '-', '-', 'no cluster']);
  });
  const title = `release ${rel.id} (${rel.state})${rel.images ? `: ${Object.entries(rel.images).map(([c, img]) => `${c}=${img}`).join(', ')}` : ''}\n`;
  return `${head}${title}${formatTable([['WAVE', 'STATE', 'CLUSTER', 'STATUS', 'STEP', 'REASON'], ...rows])}\n`;
}

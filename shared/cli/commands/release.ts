// `rollouts release web --image app=nginx:1.28`: start a release by changing the workload's images
// through the API (the rollout then moves pods batch by batch). `--at` schedules the start.
import { InvalidArgumentError, type Command } from 'commander';
import { examplesHelp } from '../help.ts';
import type { CliIO } from '../io.ts';
import { TARGET_HELP, addTargetOptions } from '../options.ts';
import { addCommandIdOption, sendCommand, type CommandFlags } from './verbs.ts';

interface ReleaseFlags extends CommandFlags {
  image: Record<string, string>;
  at?: string;
}

/** Collects repeated `--image <container>=<image>` into {container: image}. */
export function imageArg(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const m = /^([^=\s]+)=(\S+)$/.exec(value);
  if (!m) throw new InvalidArgumentError(`write <container>=<image>, e.g. app=nginx:1.28 (got "${value}").`);
  const [, container, image] = m as unknown as [string, string, string];
  if (previous[container] !== undefined && previous[container] !== image) throw new InvalidArgumentError(`container "${container}" is given twice.`);
  return { ...previous, [container]: image };
}

function atArg(value: string): string {
  if (Number.isNaN(Date.parse(value)) || !/^\d{4}-\d{2}-\d{2}T/.test(value)) {
    throw new InvalidArgumentError('must be an RFC 3339 time such as 2030-01-01T09:00:00Z or 2030-01-01T10:00:00+01:00.');
  }
  return value;
}

export function register(program: Command, io: CliIO): void {
  addCommandIdOption(addTargetOptions(
    program
      .command('release <name>')
      .description('start a release: change container images, then move pods batch by batch')
      .requiredOption('--image <container=image>', 'new image of a container (repeat for several)', imageArg)
      .option('--at <time>', 'do not move pods before this time (RFC 3339)', atArg),
  ))
    .addHelpText('after', `${TARGET_HELP}\n${examplesHelp([
      ['rollouts release web --image app=nginx:1.28', 'release a new image of container "app"'],
      ['rollouts release web --image app=nginx:1.28 --image sidecar=envoy:1.31 --at 2030-01-01T09:00:00Z', 'two containers, starting at 09:00 UTC'],
    ])}`)
    .action((name: string, flags: ReleaseFlags) => {
      const images = Object.entries(flags.image).map(([c, i]) => `${c}=${i}`).join(', ');
      return sendCommand(io, name, flags, 'release', { images: flags.image, ...(flags.at ? { startAt: flags.at } : {}) },
        `rollout/${name}: release requested (${images})${flags.at ? `, starting at ${flags.at}` : ''}`);
    });
}

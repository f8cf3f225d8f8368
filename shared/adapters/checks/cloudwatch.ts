// cloudwatchAlarm gates: one DescribeAlarms per region for the named alarms (metric and composite).
// Every alarm OK passes; any ALARM fails, naming it; INSUFFICIENT_DATA (and none in ALARM) is
// inconclusive; an alarm that does not exist is an error of the check (a typo should not pass).
import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import type { GateMeasurement } from '../../rollout/checkTypes.ts';
import { regionalClients } from '../aws/regionalClients.ts';
import { awsRetryConfig } from '../aws/retryConfig.ts';
import { errorText } from './callBody.ts';

export type CloudWatchClientFor = (region: string | null) => Pick<CloudWatchClient, 'send'>;

export function cloudWatchClients(): CloudWatchClientFor {
  return regionalClients((region) => new CloudWatchClient({ ...awsRetryConfig(), ...(region ? { region } : {}) }));
}

export async function alarmGate(alarms: { name: string; region: string | null }[], timeoutSeconds: number, clientFor: CloudWatchClientFor): Promise<GateMeasurement> {
  const byRegion = new Map<string | null, string[]>();
  for (const a of alarms) byRegion.set(a.region, [...(byRegion.get(a.region) ?? []), a.name]);
  const states = new Map<string, string>();
  try {
    for (const [region, names] of byRegion) {
      const out = await clientFor(region).send(new DescribeAlarmsCommand({ AlarmNames: names, AlarmTypes: ['MetricAlarm', 'CompositeAlarm'] }), { abortSignal: AbortSignal.timeout(timeoutSeconds * 1000) });
      for (const a of [...(out.MetricAlarms ?? []), ...(out.CompositeAlarms ?? [])]) if (a.AlarmName) states.set(a.AlarmName, a.StateValue ?? 'UNKNOWN');
    }
  } catch (err) {
    return { result: 'error', value: `DescribeAlarms: ${errorText(err)}` };
  }
  const value = alarms.map((a) => `${a.name} ${states.get(a.name) ?? 'not found'}`).join(', ');
  const missing = alarms.filter((a) => !states.has(a.name));
  if (missing.length > 0) return { result: 'error', value };
  if (alarms.some((a) => states.get(a.name) === 'ALARM')) return { result: 'fail', value };
  if (alarms.every((a) => states.get(a.name) === 'OK')) return { result: 'pass', value };
  return { result: 'inconclusive', value };
}

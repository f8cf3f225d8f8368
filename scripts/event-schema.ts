// `npm run schemas`: writes schemas/rollout-event.schema.json and schemas/fleet-event.schema.json
// from their zod definitions (shared/rollout/eventSchema.ts, shared/fleet/eventSchema.ts).
// test/unit/rollout/eventSchema.test.ts and test/unit/fleet/eventSchema.test.ts fail when a file is stale.
import { writeFileSync } from 'node:fs';
import { fleetEventJsonSchema } from '../shared/fleet/eventSchema.ts';
import { eventJsonSchema } from '../shared/rollout/eventSchema.ts';

for (const [name, schema] of [['rollout-event', eventJsonSchema()], ['fleet-event', fleetEventJsonSchema()]] as const) {
  const file = new URL(`../schemas/${name}.schema.json`, import.meta.url);
  writeFileSync(file, `${JSON.stringify(schema, null, 2)}\n`);
  console.log(`wrote ${file.pathname}`);
}

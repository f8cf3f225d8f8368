// `npm run schemas`: writes schemas/rollout-event.schema.json from its zod definition
// (shared/rollout/eventSchema.ts). test/unit/rollout/eventSchema.test.ts fails when the file is stale.
import { writeFileSync } from 'node:fs';
import { eventJsonSchema } from '../shared/rollout/eventSchema.ts';

const file = new URL('../schemas/rollout-event.schema.json', import.meta.url);
writeFileSync(file, `${JSON.stringify(eventJsonSchema(), null, 2)}\n`);
console.log(`wrote ${file.pathname}`);

// The key a fleet is stored and queued under: `F#<name>` beside the rollouts' `R#<cluster>#<ns>#<name>`
// (docs/fleet.md, "State"). A fleet name is a DNS-1123 subdomain, so it never contains "#" or "/".
export const FLEET_KEY_PREFIX = 'F#';

export function fleetKey(name: string): string {
  return `${FLEET_KEY_PREFIX}${name}`;
}

/** The fleet's name from its key, or null when the key is not a fleet's. */
export function fleetNameOf(key: string): string | null {
  return key.startsWith(FLEET_KEY_PREFIX) ? key.slice(FLEET_KEY_PREFIX.length) : null;
}

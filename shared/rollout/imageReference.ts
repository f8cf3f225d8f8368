// Container image references, checked with the grammar of the reference that container runtimes
// and registries parse: distribution/reference's regexp.go (github.com/distribution/reference,
// v0.6), ported exactly (no maintained npm library implements it; the few ports are unmaintained):
//
//   reference       := name [ ":" tag ] [ "@" digest ]
//   name            := [domain '/'] remote-name
//   domain          := host [':' port-number]
//   host            := domain-name | IPv4address | \[ IPv6address \]
//   domain-name     := domain-component ['.' domain-component]*
//   domain-component:= /([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])/
//   remote-name     := path-component ['/' path-component]*
//   path-component  := alpha-numeric [separator alpha-numeric]*
//   alpha-numeric   := /[a-z0-9]+/
//   separator       := /[_.]|__|[-]+/
//   tag             := /[\w][\w.-]{0,127}/
//   digest          := algorithm ":" hex   (algorithm /[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*/, hex 32+)
// plus its one rule outside the regexp: the name is at most 255 characters (NameTotalLengthMax).
// Pure, no I/O: used by the API (shared/api/commandBodies.ts).

const alphanumeric = '[a-z0-9]+';
const separator = '(?:[._]|__|[-]+)';
const domainNameComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const ipv6address = '\\[(?:[a-fA-F0-9:]+)\\]';
const domainName = `${domainNameComponent}(?:\\.${domainNameComponent})*`;
const host = `(?:${domainName}|${ipv6address})`;
const domainAndPort = `${host}(?::[0-9]+)?`;
const tag = '[\\w][\\w.-]{0,127}';
const digest = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}';
const pathComponent = `${alphanumeric}(?:${separator}${alphanumeric})*`;
const remoteName = `${pathComponent}(?:/${pathComponent})*`;
const name = `(?:${domainAndPort}/)?${remoteName}`;
const REFERENCE = new RegExp(`^(${name})(?::(${tag}))?(?:@(${digest}))?$`);

const NAME_TOTAL_LENGTH_MAX = 255;

/** Why `ref` is not an image reference, or null when it is one. */
export function imageReferenceProblem(ref: string): string | null {
  if (ref === '') return 'must not be empty';
  const match = REFERENCE.exec(ref);
  if (!match) {
    if (/[A-Z]/.test(ref.split(/[:@]/)[0]?.split('/').slice(-1)[0] ?? '')) return `"${ref}" is not a valid image reference: the repository name must be lowercase`;
    return `"${ref}" is not a valid image reference (expected [registry[:port]/]name[:tag][@algorithm:digest], e.g. nginx:1.28 or ghcr.io/org/app@sha256:…)`;
  }
  if ((match[1] ?? '').length > NAME_TOTAL_LENGTH_MAX) return `"${ref}" is not a valid image reference: the repository name is longer than ${NAME_TOTAL_LENGTH_MAX} characters`;
  return null;
}

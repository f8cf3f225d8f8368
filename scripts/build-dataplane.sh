#!/usr/bin/env bash
# Builds the test bed's data plane, from the Go module proxy only:
#   traefik       github.com/traefik/traefik/v3, a Gateway API implementation that runs outside the
#                 cluster, reads HTTPRoutes/Services/EndpointSlices through a kubeconfig and proxies
#                 real requests to the kwok pods' loopback IPs (bench/testbed/dataplane/)
#   gateway-api   the standard channel's CRDs from sigs.k8s.io/gateway-api's own config/crd/standard,
#                 at the version Traefik's go.mod requires (checked here, so the two never drift)
# Each is cached outside the repository under ${XDG_CACHE_HOME:-~/.cache}/serverless-rollouts/<component>/<version>,
# is a no-op when cached, and prints how long it took. Builds run at low priority (2 shared cores).
# Usage: build-dataplane.sh [component...]          (default: all, in the order above)
#        build-dataplane.sh --print-dir <component> (where the harness finds it; builds nothing)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/serverless-rollouts"
COMPONENTS=(traefik gateway-api)

TRAEFIK_VERSION="v3.7.13"        # its go.mod says go 1.26.0
GATEWAY_API_VERSION="v1.6.1"     # what traefik v3.7.13's go.mod requires (checked by build_gateway_api)

dir_of() {
  case "$1" in
    traefik) echo "$CACHE_ROOT/traefik/$TRAEFIK_VERSION" ;;
    gateway-api) echo "$CACHE_ROOT/gateway-api/$GATEWAY_API_VERSION" ;;
    *) echo "build-dataplane: unknown component '$1' (one of: ${COMPONENTS[*]})" >&2; return 1 ;;
  esac
}

if [[ "${1:-}" == "--print-dir" ]]; then dir_of "${2:?component}"; exit 0; fi

# One build at a time per component cache, as scripts/build-testbed.sh does: two checkouts building
# at once would write the same files.
mkdir -p "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/.dataplane-build.lock"
flock 9
renice -n 10 -p $$ >/dev/null 2>&1 || true   # 2 shared cores: tests and other work come first
export GOFLAGS="${GOFLAGS:--buildvcs=false} -trimpath"
export CGO_ENABLED=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rollouts-dataplane.XXXXXX")
trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT

need_go() {
  command -v go >/dev/null || { echo "build-dataplane: go is required to build $1" >&2; exit 1; }
  # go 1.26.0 in traefik's go.mod: an older toolchain would try to download a newer one.
  local have; have=$(go env GOVERSION); have="${have#go}"
  [[ "$(printf '%s\n1.26.0\n' "$have" | sort -V | head -1)" == "1.26.0" ]] \
    || { echo "build-dataplane: $1 needs Go >= 1.26.0, found $have" >&2; exit 1; }
}

module_dir() { go mod download -json "$1" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p'; }

build_traefik() {
  local out; out="$(dir_of traefik)"
  [[ -x "$out/bin/traefik" ]] && { echo "dataplane: traefik $TRAEFIK_VERSION cached at $out"; return; }
  need_go traefik
  # traefik's go.mod has replace directives (forks of go-http-auth and mux, a local module), so
  # `go install …@version` refuses it: build a writable copy of the module with its own go.sum, the
  # recipe scripts/build-testbed.sh uses for kruise-manager.
  local src; src=$(module_dir "github.com/traefik/traefik/v3@$TRAEFIK_VERSION")
  cp -r "$src" "$WORK/traefik" && chmod -R u+w "$WORK/traefik" && cd "$WORK/traefik"
  # Three things the published module cannot build by itself here (each checked, so a new version
  # that no longer needs it fails loudly rather than being patched blindly):
  # 1. `replace github.com/traefik/traefik/dynamic/ext => ./pkg/config/dynamic/ext` names a nested
  #    module, which a module zip never contains. In the traefik repository it is two empty structs
  #    (extension points that dynamic.HTTP and dynamic.Router embed); write the same.
  local ext="pkg/config/dynamic/ext"
  grep -q "=> ./$ext\$" go.mod && [[ ! -e "$ext" ]] || { echo "build-dataplane: traefik's go.mod no longer replaces the nested module $ext as expected; update the script" >&2; exit 1; }
  mkdir -p "$ext"
  printf 'module github.com/traefik/traefik/dynamic/ext\n\ngo 1.26.0\n' > "$ext/go.mod"
  printf 'package ext\n\n// HTTP is a dynamic.HTTP extension.\ntype HTTP struct{}\n\n// Router is a dynamic.Router extension.\ntype Router struct{}\n' > "$ext/ext.go"
  # 2. The fork of go-http-auth it pins (v0.4.1-0.20260804094822-b975dcaa8c48) is refused by the
  #    module proxy ("403 This module version is not available"). Use the fork's commit that
  #    traefik v3.0–v3.7.9 pinned, which the proxy serves; only the basic/digest auth middlewares use it.
  local auth_fork="github.com/containous/go-http-auth" auth_pinned="v0.4.1-0.20260804094822-b975dcaa8c48" auth_used="v0.4.1-0.20200324110947-a37a7636d23e"
  grep -q "github.com/abbot/go-http-auth => $auth_fork $auth_pinned" go.mod || { echo "build-dataplane: traefik no longer pins $auth_fork $auth_pinned; update the script" >&2; exit 1; }
  go mod edit "-replace=github.com/abbot/go-http-auth=$auth_fork@$auth_used"
  go mod download github.com/abbot/go-http-auth
  # 3. ACME's DNS-01 challenge imports lego's registry of ~180 DNS providers; the proxy refuses 13 of
  #    their SDKs (403, e.g. github.com/go-acme/alidns-20150109/v5 v5.6.1). The test bed obtains no
  #    certificates: drop that one import, and a DNS challenge becomes a configuration error.
  local acme="pkg/provider/acme/provider.go" lookup='dns.NewDNSChallengeProviderByName(p.DNSChallenge.Provider)'
  grep -qF "$lookup" "$acme" && grep -q '"github.com/go-acme/lego/v5/providers/dns"' "$acme" || { echo "build-dataplane: $acme no longer looks up lego's DNS providers as expected; update the script" >&2; exit 1; }
  sed -i '\#"github.com/go-acme/lego/v5/providers/dns"#d' "$acme"
  sed -i "s#$lookup#nil, errors.New(\"ACME DNS-01 providers are not built into the serverless-rollouts test bed's traefik\")#" "$acme"
  # The web UI is not built (webui/static holds only a placeholder, which go:embed accepts): the
  # tests use the proxy and the /ping and /api endpoints, never the dashboard.
  go build -ldflags "-s -w -X github.com/traefik/traefik/v3/pkg/version.Version=$TRAEFIK_VERSION" -o "$WORK/traefik.bin" ./cmd/traefik
  mkdir -p "$out/bin"
  install -m 0755 "$WORK/traefik.bin" "$out/bin/traefik.tmp" && mv "$out/bin/traefik.tmp" "$out/bin/traefik"
}

build_gateway_api() {
  local out; out="$(dir_of gateway-api)"
  [[ -f "$out/.complete" ]] && { echo "dataplane: gateway-api $GATEWAY_API_VERSION cached at $out"; return; }
  need_go gateway-api
  local gomod; gomod=$(go mod download -json "github.com/traefik/traefik/v3@$TRAEFIK_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  local required; required=$(sed -n 's/^[[:space:]]*sigs\.k8s\.io\/gateway-api \(v[^ ]*\)$/\1/p' "$gomod")
  [[ "$required" == "$GATEWAY_API_VERSION" ]] \
    || { echo "build-dataplane: traefik $TRAEFIK_VERSION requires gateway-api '$required', the script pins $GATEWAY_API_VERSION; update GATEWAY_API_VERSION" >&2; exit 1; }
  local src; src=$(module_dir "sigs.k8s.io/gateway-api@$GATEWAY_API_VERSION")
  rm -rf "$out" && mkdir -p "$out/crds"
  # The standard channel: GatewayClass, Gateway, HTTPRoute, GRPCRoute, TLSRoute, ReferenceGrant,
  # BackendTLSPolicy... (Traefik watches each of these) and the upgrade-guard ValidatingAdmissionPolicy.
  install -m 0644 "$src/config/crd/standard/"*.yaml "$out/crds/"
  touch "$out/.complete"
}

selected=("$@")
[[ ${#selected[@]} -eq 0 ]] && selected=("${COMPONENTS[@]}")
for component in "${selected[@]}"; do
  dir_of "$component" >/dev/null
  start=$(date +%s)
  (cd "$ROOT" && "build_${component//-/_}")
  echo "dataplane: $component took $(( $(date +%s) - start ))s"
done

#!/usr/bin/env bash
# Builds the release controllers the bench's `peers` area compares us with (not built yet: issue 26), from the
# Go module proxy only, each run outside the cluster against the bench's control plane:
#   argo-rollouts    Argo Rollouts' controller (cmd/rollouts-controller) + its CRDs
#   kruise-rollout   Kruise Rollout's manager + its CRDs and webhook configurations
# Each is cached outside the repository under ${XDG_CACHE_HOME:-~/.cache}/serverless-rollouts/<component>/<version>,
# is a no-op when cached, and prints how long it took. Built on first use by the bench (never by
# .ci/run or npm test), one after another, at low priority.
# Usage: build-peers.sh [component...]          (default: both)
#        build-peers.sh --print-dir <component> (where the bench finds it; builds nothing)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/serverless-rollouts"
COMPONENTS=(argo-rollouts kruise-rollout)

ARGO_VERSION="v1.9.2"            # v1.9.3 needs go >= 1.26.10 (the machine has 1.26.8)
KRUISE_ROLLOUT_VERSION="v0.6.2"

dir_of() {
  case "$1" in
    argo-rollouts) echo "$CACHE_ROOT/argo-rollouts/$ARGO_VERSION" ;;
    kruise-rollout) echo "$CACHE_ROOT/kruise-rollout/$KRUISE_ROLLOUT_VERSION" ;;
    *) echo "build-peers: unknown component '$1' (one of: ${COMPONENTS[*]})" >&2; return 1 ;;
  esac
}

if [[ "${1:-}" == "--print-dir" ]]; then dir_of "${2:?component}"; exit 0; fi

mkdir -p "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/.peers-build.lock"
flock 9
renice -n 10 -p $$ >/dev/null 2>&1 || true   # 2 shared cores: tests and other work come first
export GOFLAGS="${GOFLAGS:--buildvcs=false} -trimpath"
export CGO_ENABLED=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rollouts-peers.XXXXXX")
trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT

command -v go >/dev/null || { echo "build-peers: go is required" >&2; exit 1; }

install_bin() { mkdir -p "$(dirname "$1")"; install -m 0755 "$2" "$1.tmp"; mv "$1.tmp" "$1"; }

# Both modules pin k8s.io/* with replace directives, so `go install …@version` refuses them: build a
# writable copy of the module with its own go.sum (the recipe scripts/build-testbed.sh uses for kruise).
module_copy() {
  local src; src=$(go mod download -json "$1@$2" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  [[ -n "$src" ]] || { echo "build-peers: go mod download $1@$2 failed" >&2; exit 1; }
  cp -r "$src" "$3" && chmod -R u+w "$3"
}

# Replaces the exact text $2 by $3 in $1, or fails: a new version that moved it needs a new look.
patch_line() {
  grep -qF "$2" "$1" || { echo "build-peers: $1 no longer contains '$2'; update the patch" >&2; exit 1; }
  local escaped_from escaped_to
  escaped_from=$(printf '%s' "$2" | sed 's/[][\.*^$/]/\\&/g'); escaped_to=$(printf '%s' "$3" | sed 's/[&/\]/\\&/g')
  sed -i "s/$escaped_from/$escaped_to/" "$1"
}

build_argo_rollouts() {
  local out; out="$(dir_of argo-rollouts)"
  if [[ -x "$out/bin/rollouts-controller" && -f "$out/crds.yaml" ]]; then echo "peers: argo-rollouts $ARGO_VERSION cached at $out"; return; fi
  module_copy github.com/argoproj/argo-rollouts "$ARGO_VERSION" "$WORK/argo"
  cd "$WORK/argo"
  # The bench listens on loopback only: the metrics and healthz servers bind every interface.
  patch_line controller/controller.go 'listenAddr                         = "0.0.0.0:%d"' 'listenAddr                         = "127.0.0.1:%d"'
  go build -ldflags "-s -w -X github.com/argoproj/argo-rollouts/utils/version.version=${ARGO_VERSION#v}" -o "$WORK/rollouts-controller" ./cmd/rollouts-controller
  mkdir -p "$out"
  for f in manifests/crds/*-crd.yaml; do cat "$f"; echo '---'; done > "$out/crds.yaml.tmp" && mv "$out/crds.yaml.tmp" "$out/crds.yaml"
  install_bin "$out/bin/rollouts-controller" "$WORK/rollouts-controller"
}

build_kruise_rollout() {
  local out; out="$(dir_of kruise-rollout)"
  if [[ -x "$out/bin/kruise-rollout" && -f "$out/webhooks.yaml" && -f "$out/crds.yaml" ]]; then echo "peers: kruise-rollout $KRUISE_ROLLOUT_VERSION cached at $out"; return; fi
  module_copy github.com/openkruise/rollouts "$KRUISE_ROLLOUT_VERSION" "$WORK/kr"
  cd "$WORK/kr"
  # Loopback only: this version hard-codes the webhook server's host and has no flag for it.
  patch_line pkg/webhook/server.go 'server.Host = "0.0.0.0"' 'server.Host = "127.0.0.1"'
  go build -ldflags "-s -w" -o "$WORK/kruise-rollout" .
  local kubectl; kubectl="$(bash "$ROOT/scripts/build-testbed.sh" --print-dir kubectl)/bin/kubectl"
  [[ -x "$kubectl" ]] || bash "$ROOT/scripts/build-testbed.sh" kubectl >/dev/null
  # The webhook configurations as the release's config/default renders them (namePrefix
  # kruise-rollout-): the manager looks them up by name at start and points them at WEBHOOK_HOST.
  mkdir -p "$WORK/render" && cp -r config/webhook "$WORK/render/webhook"
  printf 'namePrefix: kruise-rollout-\nresources:\n- webhook\n' > "$WORK/render/kustomization.yaml"
  mkdir -p "$out"
  "$kubectl" kustomize "$WORK/render" > "$out/webhooks.yaml.tmp" && mv "$out/webhooks.yaml.tmp" "$out/webhooks.yaml"
  for f in config/crd/bases/*.yaml; do cat "$f"; echo '---'; done > "$out/crds.yaml.tmp" && mv "$out/crds.yaml.tmp" "$out/crds.yaml"
  install_bin "$out/bin/kruise-rollout" "$WORK/kruise-rollout"
}

selected=("$@")
[[ ${#selected[@]} -eq 0 ]] && selected=("${COMPONENTS[@]}")
for component in "${selected[@]}"; do
  dir_of "$component" >/dev/null
  start=$(date +%s)
  (cd "$ROOT" && "build_${component//-/_}")
  echo "peers: $component took $(( $(date +%s) - start ))s"
done

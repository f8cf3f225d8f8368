#!/usr/bin/env bash
# Builds the real Kubernetes test control plane from Go modules (no Docker, no downloads besides the
# Go module proxy): etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok.
# The result is cached outside the repository, keyed by version, and the script does nothing when
# every binary is already there.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.34.4}"   # newest 1.34 patch on the proxy; builds with Go 1.26 (see README)
ETCD_VERSION="${ETCD_VERSION:-3.6.16}"
KWOK_VERSION="${KWOK_VERSION:-0.7.0}"   # 0.7.0 builds with Go >= 1.24; 0.8.0 needs Go 1.26
KEY="k8s-v${K8S_VERSION}_etcd-v${ETCD_VERSION}_kwok-v${KWOK_VERSION}"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/serverless-rollouts/kube"
OUT="${CACHE_ROOT}/${KEY}"
BIN="${OUT}/bin"
BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)

if [[ "${1:-}" == "--print-dir" ]]; then echo "$BIN"; exit 0; fi
if [[ "${1:-}" == "--print-version" ]]; then echo "v${K8S_VERSION}"; exit 0; fi

all_present() { for b in "${BINARIES[@]}"; do [[ -x "$BIN/$b" ]] || return 1; done; }
if all_present && [[ -f "$OUT/stages/pod-ready.yaml" ]]; then
  echo "testplane: cached at $BIN"
  exit 0
fi

command -v go >/dev/null || { echo "testplane: go is required to build the control plane" >&2; exit 1; }
# Two checkouts building at once (worktrees, a test run beside a setup) would write the same .tmp
# binaries: one build at a time, and a build that waited finds the other's result.
mkdir -p "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/.build.lock"
flock 9
if all_present && [[ -f "$OUT/stages/pod-ready.yaml" ]]; then
  echo "testplane: cached at $BIN (built meanwhile by another run)"
  exit 0
fi
start=$(date +%s)
mkdir -p "$BIN"
WORK=$(mktemp -d "${CACHE_ROOT}/build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export GOFLAGS="${GOFLAGS:--buildvcs=false} -trimpath"
export CGO_ENABLED=0

step() { echo "testplane: $* ($(( $(date +%s) - start ))s)"; }

# --- kube-apiserver, kube-controller-manager, kube-scheduler ------------------------------------
# k8s.io/kubernetes requires its staging modules at v0.0.0 and replaces them with ./staging paths,
# so `go install` cannot build it; we build inside our own module and replace each staging module
# by its published v0.<minor>.<patch> twin.
if [[ ! -x "$BIN/kube-apiserver" || ! -x "$BIN/kube-controller-manager" || ! -x "$BIN/kube-scheduler" ]]; then
  step "resolving k8s.io/kubernetes v${K8S_VERSION}"
  STAGING="v0.${K8S_VERSION#1.}"
  mkdir -p "$WORK/k8s" && cd "$WORK/k8s"
  go mod init example.invalid/k8sbins >/dev/null 2>&1
  GOMOD=$(go mod download -json "k8s.io/kubernetes@v${K8S_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  # The staging modules are exactly those go.mod replaces with ./staging paths (k8s.io/utils and
  # kube-openapi also sit at v0.0.0-<date> pseudo-versions, but are ordinary published modules).
  for m in $(sed -n 's/^[[:space:]]*\(k8s\.io\/[^ ]*\) => \.\/staging\/.*/\1/p' "$GOMOD" | sort -u); do
    go mod edit "-replace=$m=$m@$STAGING"
  done
  go get "k8s.io/kubernetes/cmd/kube-apiserver@v${K8S_VERSION}" "k8s.io/kubernetes/cmd/kube-controller-manager@v${K8S_VERSION}" \
    "k8s.io/kubernetes/cmd/kube-scheduler@v${K8S_VERSION}" 2>&1 | tail -1
  MINOR="${K8S_VERSION#1.}"; MINOR="${MINOR%%.*}"
  LD="-s -w -X k8s.io/component-base/version.gitVersion=v${K8S_VERSION} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${MINOR} -X k8s.io/component-base/version.gitTreeState=clean"
  for c in kube-apiserver kube-controller-manager kube-scheduler; do
    step "building $c"
    go build -ldflags "$LD" -o "$BIN/$c.tmp" "k8s.io/kubernetes/cmd/$c"
    mv "$BIN/$c.tmp" "$BIN/$c"
  done
fi

# --- etcd ----------------------------------------------------------------------------------------
# Separate module so minimal version selection does not mix etcd's dependencies with Kubernetes'.
if [[ ! -x "$BIN/etcd" ]]; then
  step "building etcd v${ETCD_VERSION}"
  mkdir -p "$WORK/etcd" && cd "$WORK/etcd"
  go mod init example.invalid/etcdbin >/dev/null 2>&1
  go get "go.etcd.io/etcd/server/v3@v${ETCD_VERSION}" 2>&1 | tail -1
  go build -ldflags "-s -w" -o "$BIN/etcd.tmp" go.etcd.io/etcd/server/v3
  mv "$BIN/etcd.tmp" "$BIN/etcd"
fi

# --- kwok ----------------------------------------------------------------------------------------
if [[ ! -x "$BIN/kwok" ]]; then
  step "building kwok v${KWOK_VERSION}"
  GOBIN="$WORK/gobin" go install -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@v${KWOK_VERSION}"
  mv "$WORK/gobin/kwok" "$BIN/kwok"
fi

# kwok's default stages ship in its module; keep a copy beside the binaries so the harness can
# compose them with its own (delayed readiness, never-ready) without a network.
MODDIR="$(go env GOMODCACHE)/sigs.k8s.io/kwok@v${KWOK_VERSION}"
[[ -d "$MODDIR" ]] || go mod download "sigs.k8s.io/kwok@v${KWOK_VERSION}" >/dev/null
mkdir -p "$OUT/stages"
for f in "$MODDIR"/kustomize/stage/node/fast/*.yaml "$MODDIR"/kustomize/stage/node/heartbeat-with-lease/*.yaml "$MODDIR"/kustomize/stage/pod/fast/*.yaml; do
  [[ "$(basename "$f")" == kustomization.yaml ]] && continue
  install -m 0644 "$f" "$OUT/stages/$(basename "$f")"
done

step "done; binaries in $BIN"
echo "testplane: build took $(( $(date +%s) - start ))s"

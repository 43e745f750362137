#!/bin/sh
# sonde in a CI pipeline: the steps that examples/ci/github-actions.yml and
# examples/ci/gitlab-ci.yml run, in one script (copy it into your repository as ci/sonde-ci.sh).
# docs/ci.md explains each step; make test runs this script (CIRecipeCLITests).
#
#   sh ci/sonde-ci.sh install   download sonde's release tarball, unpack it, print its bin folder
#                               (and add it to $GITHUB_PATH on GitHub Actions)
#   sh ci/sonde-ci.sh check     probe, gate on thresholds, compare with the previous run; keeps
#                               junit.xml, report.json/html and summary.md in $SONDE_OUT
#
# Settings (environment):
#   install: SONDE_VERSION (e.g. 0.1.0), SONDE_RELEASE_URL (the folder holding
#            sonde-$SONDE_VERSION-linux-x86_64.tar.gz), SONDE_SHA256 (the tarball's SHA-256,
#            checked when set), SONDE_INSTALL_DIR (default $HOME/.local/sonde)
#   check:   SONDE_LOGIN_URL, SONDE_HOME_URL (what to probe), SONDE_COUNT (requests per URL,
#            default 20), SONDE_OUT (default sonde-out), SONDE_HISTORY (the history of earlier
#            runs, default .sonde/history.sqlite: cache its folder between pipelines)
#
# The exit status is sonde's: 0 passed, 1 a request failed, 99 a threshold failed, 64 a usage
# error (a baseline of other URLs, say); keep $SONDE_OUT whatever it is.
set -eu

install() {
    : "${SONDE_VERSION:?set SONDE_VERSION, e.g. 0.1.0}"
    : "${SONDE_RELEASE_URL:?set SONDE_RELEASE_URL to the folder of the release tarballs}"
    dir=${SONDE_INSTALL_DIR:-$HOME/.local/sonde}
    tarball=sonde-$SONDE_VERSION-linux-x86_64.tar.gz
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    echo "sonde-ci: downloading $SONDE_RELEASE_URL/$tarball" >&2
    curl -fsSL --retry 3 -o "$work/$tarball" "$SONDE_RELEASE_URL/$tarball"
    if [ -n "${SONDE_SHA256:-}" ]; then
        echo "$SONDE_SHA256  $work/$tarball" | sha256sum -c --quiet - >&2 || {
            echo "sonde-ci: $tarball does not have the SHA-256 in SONDE_SHA256: not installed" >&2
            exit 1
        }
    fi
    # Unpacked into a folder of this version's own (an earlier install of it replaced).
    into=$dir/sonde-$SONDE_VERSION
    rm -rf "$into"
    mkdir -p "$into"
    tar -xzf "$work/$tarball" -C "$into"
    # bin/sonde at the top of the tarball, or inside one folder.
    sonde=$(find "$into" -path '*/bin/sonde' -type f | head -n 1)
    [ -n "$sonde" ] || { echo "sonde-ci: $tarball holds no bin/sonde" >&2; exit 1; }
    bin=$(cd "$(dirname "$sonde")" && pwd)
    "$bin/sonde" version >&2
    if [ -n "${GITHUB_PATH:-}" ]; then echo "$bin" >> "$GITHUB_PATH"; fi
    echo "$bin"
}

check() {
    : "${SONDE_LOGIN_URL:?set SONDE_LOGIN_URL to the URL to probe}"
    : "${SONDE_HOME_URL:?set SONDE_HOME_URL to the URL to probe}"
    out=${SONDE_OUT:-sonde-out}
    history=${SONDE_HISTORY:-.sonde/history.sqlite}
    mkdir -p "$out" "$(dirname "$history")"
    # --run-dir: the run goes exactly there (a new folder); --history keeps this run for the next
    # pipeline, whose --baseline previous compares with it (a first run has none, and passes).
    exec sonde probe \
        --name login "$SONDE_LOGIN_URL" \
        --name home "$SONDE_HOME_URL" \
        --count "${SONDE_COUNT:-20}" \
        --threshold 'total.p95{name=login}<300ms' \
        --threshold 'total.p95<2s' \
        --threshold 'errors.rate<1%' \
        --baseline previous \
        --history "$history" \
        --summary-md "$out/summary.md" \
        --run-dir "$out/run"
}

case "${1:-}" in
    install) install ;;
    check) check ;;
    *) echo "usage: $0 install|check (see the comments at its top)" >&2; exit 64 ;;
esac

#!/usr/bin/env bash
# The OCI image archive of `make dist`, with no registry: a Debian 12 root file system made by mmdebstrap
# from the package mirror apt uses, with sonde's .deb installed (its Depends resolved there) and a user
# sonde (uid 10001, home /var/lib/sonde), imported into a private podman store and saved as an OCI archive.
#   scripts/dist-image.sh DEB VERSION OUT.tar
# Entrypoint /usr/bin/sonde, user sonde, working directory /var/lib/sonde (a volume: run folders, history).
set -euo pipefail
deb=$(realpath "$1"); version=$2; out=$3
here=$(cd "$(dirname "$0")/.." && pwd)
work=$here/.build/dist/image
rm -rf "$work" && mkdir -p "$work"
start=$SECONDS
mmdebstrap --quiet --variant=minbase --include=ca-certificates --include="$deb" \
  --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
  --customize-hook='chroot "$1" useradd --uid 10001 --user-group --home-dir /var/lib/sonde --create-home --shell /usr/sbin/nologin sonde' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/cache/apt/archives/*.deb' \
  bookworm "$work/rootfs.tar"
# A private store (vfs: no overlay mounts needed), so the host's containers are not touched.
podman=(podman --root "$work/storage" --runroot "$work/run" --storage-driver vfs)
image=localhost/sonde:$version
"${podman[@]}" import --quiet \
  --change 'ENTRYPOINT ["/usr/bin/sonde"]' --change 'CMD ["--help"]' \
  --change 'USER sonde' --change 'WORKDIR /var/lib/sonde' --change 'VOLUME /var/lib/sonde' --change 'EXPOSE 9166' \
  --change "LABEL org.opencontainers.image.title=sonde org.opencontainers.image.version=$version" \
  "$work/rootfs.tar" "$image" >/dev/null
rm -f "$out"
"${podman[@]}" save --quiet --format oci-archive -o "$out" "$image"
"${podman[@]}" rmi --all --force >/dev/null 2>&1 || true
rm -rf "$work/storage" "$work/run" "$work/rootfs.tar"
echo "dist: $out: $(du -h "$out" | cut -f1) ($((SECONDS - start)) s)" >&2

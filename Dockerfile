# The tool invocation service. Two stages: the TypeScript toolchain and the development
# dependencies stay in the first; the image runs only node, the compiled app and its production
# dependencies, as the unprivileged `node` user.
#
#   DOCKER_BUILDKIT=1 docker build -t tool-invocation-service:latest .
#
# NODE_IMAGE is the base of both stages: the official Node 24 image by default; on a machine where
# no image registry answers, scripts/docker-base-images.sh makes tis-local/node:24 from Debian's
# packages (`--build-arg NODE_IMAGE=tis-local/node:24`). Behind a TLS proxy that re-signs what it
# forwards, the proxy's certificate authority is a BuildKit secret (`--secret id=ca,src=<file>`):
# `npm ci` trusts it; being a secret, it ends in no layer of the image.

ARG NODE_IMAGE=node:24-trixie-slim

# ---- build ----------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
# No compiler: better-sqlite3 (13) is a Node-API module whose npm package carries its binaries, one
# for every Node from 22 on. npm ci still runs node-gyp for it (a lockfile does not record the
# package's `gypfile: false`), whose configure needs python3 and make; its binding.gyp then builds
# nothing where the package has this platform's binary (a second). A native module that did
# compile would do so against the headers the image's Node ships in /usr/local/include/node
# (nodedir: nothing downloaded).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# npm's cache is a BuildKit cache, kept between builds and in no layer.
RUN --mount=type=secret,id=ca \
    --mount=type=cache,target=/root/.npm,sharing=locked \
    if [ -f /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi \
 && npm_config_nodedir=/usr/local npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY scripts/ensure-built.js scripts/build-console.js scripts/openapi-document.js ./scripts/
COPY src ./src
# The operator console (/console): built after the service, from its OpenAPI document.
COPY console ./console
# Of better-sqlite3 only its JavaScript and the binaries of this machine's architecture stay (glibc's
# and musl's), not its sources, node-gyp's empty build nor the other platforms' binaries; then it
# must load.
RUN npm run build \
 && npm prune --omit=dev \
 && arch=$(node -p process.arch) \
 && cd node_modules/better-sqlite3 \
 && rm -rf build deps src \
 && find prebuilds -type f ! -name "linux-$arch.node" ! -name "linuxmusl-$arch.node" -delete \
 && node -e "new (require('better-sqlite3'))(':memory:').close()"

# ---- runtime --------------------------------------------------------------------------------------
FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./package.json
# The MIT licence asks that its notice travel with every copy, the image included.
COPY LICENSE ./LICENSE
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# DATA_DIR: the SQLite store (without REDIS_URL), the initial key file, the cache directory. The
# service writes nothing else: the root file system may be mounted read-only (docker-compose.yml).
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8000
# Liveness: GET /health/live answers while the process serves, whatever its store does (restarting
# the container would not bring a store back; /health/ready is for load balancers). No curl in this
# image: node's own fetch asks.
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8000)+'/health/live',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The operator CLI is in the image too: docker exec <container> node dist/cli.js keys list
CMD ["node", "dist/main.js"]

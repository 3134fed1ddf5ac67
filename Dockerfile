# The tool invocation service. Two stages: the compilers needed to build better-sqlite3 (a native
# module) and the TypeScript toolchain stay in the first; the image runs only node, the compiled app
# and its production dependencies, as the unprivileged `node` user.

# ---- build ----------------------------------------------------------------------------------------
FROM node:22-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY scripts/ensure-built.js scripts/build-console.js scripts/openapi-document.js ./scripts/
COPY src ./src
# The operator console (/console): built after the service, from its OpenAPI document.
COPY console ./console
RUN npm run build \
 && npm prune --omit=dev

# ---- runtime --------------------------------------------------------------------------------------
FROM node:22-bookworm-slim
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
# DATA_DIR: the SQLite store (without REDIS_URL), the initial key file, the cache directory.
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

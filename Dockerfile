# syntax=docker/dockerfile:1
# One image for every Cairn service; the service is the command:
#   docker build -t cairn:latest .
#   docker run cairn:latest accounts        (default: gateway)
# Stages: manifests (package.json files only, so the npm layers survive source edits), build (full install,
# compile, collect what runs), runtime (production dependencies + compiled code, non-root).

FROM node:20-bookworm-slim AS base
# The npm release the lockfile is made with (root package.json "packageManager").
ARG NPM_VERSION=11.19.1
ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false \
    TURBO_TELEMETRY_DISABLED=1
RUN npm install --global "npm@${NPM_VERSION}" && npm cache clean --force

FROM base AS manifests
WORKDIR /src
COPY package.json package-lock.json ./
# The root postinstall script, which npm ci runs.
COPY scripts/lockfile-optional.js scripts/
COPY libs libs
COPY services services
# Only each workspace's package.json is needed to install; the copy below then only changes with them.
RUN find libs services -mindepth 2 -maxdepth 2 ! -name package.json -exec rm -rf {} +

FROM base AS build
WORKDIR /src
COPY --from=manifests /src ./
RUN npm ci
COPY . .
RUN npm run build
# What each workspace needs at run time: its compiled code, and the files that code reads beside it (SQL
# migrations, the Gitea API description, git-storage's git hooks). deploy/dockerfile.test.ts checks this list
# covers every workspace.
RUN mkdir /runtime \
 && for pkg in libs/* services/*; do \
      for part in dist migrations src/db/migrations api hooks; do \
        if [ -e "$pkg/$part" ]; then mkdir -p "/runtime/$pkg/$part" && cp -R "$pkg/$part/." "/runtime/$pkg/$part/"; fi; \
      done; \
    done

FROM base AS runtime
# git for the git-storage service (and mirrors); ca-certificates for https remotes.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production \
    CAIRN_WORK_DIR=/data
COPY --from=manifests /src ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /runtime/ ./
COPY scripts/run-service.js scripts/health-probe.js scripts/
# The set-up steps deploy/k8s/setup-job.yaml runs: streams and consumers, per-service database roles.
COPY scripts/nats-config.js scripts/postgres-roles.js scripts/
# The work directory (repositories, runtime files) belongs to the unprivileged `node` user (uid 1000), and so does
# /rpc-keys, where docker-compose's one-shot `keys` container writes the service identity keys (a named volume
# mounted there starts with this owner).
# /data/attachments exists so that a volume mounted there (the gateway's and repos' shared attachments) starts
# owned by the service user.
RUN mkdir -p /data/attachments && chown -R 1000:1000 /data
RUN mkdir /rpc-keys && chown 1000:1000 /rpc-keys
VOLUME ["/data"]
# Numeric, so Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
# gateway HTTP; accounts, notifications, repos, git-storage, social, issues, hooks and migrations gRPC; metrics (every service)
EXPOSE 3000 50051 50052 50053 50054 50055 50056 50057 50058 9464
ENTRYPOINT ["node", "scripts/run-service.js"]
CMD ["gateway"]

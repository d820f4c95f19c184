# syntax=docker/dockerfile:1
# Build: compile TypeScript with the dev dependencies.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/write-build-info.ts ./scripts/
# The commit `portcullis --version` and portcullis_build_info name: the build context has no .git,
# so pass it: docker build --build-arg PORTCULLIS_COMMIT="$(git rev-parse HEAD)" . (else: unknown).
ARG PORTCULLIS_COMMIT=
RUN npm run build

# Run: production dependencies only, non-root, no shell between the signal and node.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
# The embedded store's initialised data directory: a first start unpacks it instead of initdb.
COPY store-template ./store-template
COPY config/portcullis.yaml ./config/portcullis.yaml
# The embedded store's directory; mount a volume here (the root filesystem may be read-only).
RUN mkdir -p /var/lib/portcullis && chown node:node /var/lib/portcullis
ENV PORTCULLIS_DATA_DIR=/var/lib/portcullis
USER node
EXPOSE 8080 9090
# Exec form, no shell: node asks the admin listener (PORTCULLIS_ADMIN_PORT, default 9090).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORTCULLIS_ADMIN_PORT || 9090) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "dist/main.js"]
CMD ["serve", "--config", "config/portcullis.yaml"]

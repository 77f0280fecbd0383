# syntax=docker/dockerfile:1
# Switchyard: the gateway and its console in one image. Data (SQLite file, generated secrets) under
# /data; set DATABASE_URL for PostgreSQL or MySQL and REDIS_URL for several replicas.

FROM docker.io/library/node:24-slim AS build
WORKDIR /app
# Dependencies first, so a source change does not reinstall them.
COPY package.json package-lock.json ./
COPY domain/package.json domain/
COPY server/package.json server/
COPY web/package.json web/
COPY e2e/package.json e2e/
COPY bench/package.json bench/
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json ./
COPY domain domain
COPY server server
COPY web web
RUN npx tsc -b domain server && npm run build -w web

FROM docker.io/library/node:24-slim AS runtime
ENV NODE_ENV=production \
    DATA_DIR=/data \
    PORT=3000 \
    HOST=0.0.0.0
WORKDIR /app
COPY package.json package-lock.json ./
COPY domain/package.json domain/
COPY server/package.json server/
COPY web/package.json web/
COPY e2e/package.json e2e/
COPY bench/package.json bench/
# Only what the server needs at run time (the SQLite driver's prebuilt binary included).
RUN npm ci --omit=dev --no-audit --no-fund -w server -w domain \
    && npm cache clean --force
COPY --from=build /app/domain/dist domain/dist
COPY --from=build /app/server/dist server/dist
COPY --from=build /app/web/dist web/dist
COPY deploy/start.sh deploy/start.sh
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# `switchyard import|migrate|create-root` run through the same entry: docker run … import --from …
ENTRYPOINT ["/app/deploy/start.sh"]
CMD ["start"]

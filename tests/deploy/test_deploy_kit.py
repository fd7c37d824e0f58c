"""The deploy kit works as written: deploy/nginx.conf passes Debian's `nginx -t` (whole, and
its port-80 part used before the first certificate), compose's nginx reaches the bot by
service name, the systemd unit passes `systemd-analyze verify`, and every key
deploy/config.example.yaml shows (commented-out ones too) is one the config reader accepts
and docs/configuration.md documents."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.app.config import load_config

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
DOMAIN = "quiz.example.org"
LIVE = f"/etc/letsencrypt/live/{DOMAIN}"


def nginx_binary() -> str:
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/sbin")
    if not found:
        pytest.skip("no nginx binary: apt-get install nginx-light (.ci/run does)")
    return found


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed pair for the domain, standing in for certbot's."""
    if not shutil.which("openssl"):
        pytest.skip("no openssl binary: apt-get install openssl")
    folder = tmp_path_factory.mktemp("cert")
    cert, key = folder / "fullchain.pem", folder / "privkey.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", f"/CN={DOMAIN}", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return cert, key


def nginx_t(site: str, tmp_path: Path, certificate: tuple[Path, Path]) -> str:
    """`nginx -t` on `site` included in a minimal http {} block, everything under tmp_path
    (pid, logs, temp folders), certbot's paths pointed at `certificate`. Returns stderr."""
    cert, key = certificate
    prefix = tmp_path / "nginx"
    prefix.mkdir()
    site = site.replace(f"{LIVE}/fullchain.pem", str(cert)).replace(f"{LIVE}/privkey.pem", str(key))
    (prefix / "quizbot.conf").write_text(site)
    temp = "\n".join(f"    {kind}_temp_path {prefix / kind};"
                     for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    (prefix / "nginx.conf").write_text(
        f"pid {prefix / 'nginx.pid'};\nerror_log {prefix / 'error.log'};\nevents {{}}\n"
        f"http {{\n    access_log off;\n{temp}\n    include {prefix / 'quizbot.conf'};\n}}\n")
    run = subprocess.run([nginx_binary(), "-t", "-q", "-c", str(prefix / "nginx.conf"),
                          "-p", str(prefix), "-e", str(prefix / "error.log")],
                         capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    return run.stderr


def servers(conf: str) -> list[str]:
    """The `server {...}` blocks' listen lines, one string per block."""
    blocks = re.split(r"^server \{", conf, flags=re.M)[1:]
    return [" ".join(re.findall(r"^\s+listen ([^;]+);", b, flags=re.M)) for b in blocks]


SHIPPED = (DEPLOY / "nginx.conf").read_text()
HTTPS_LINE = "# ---- HTTPS"


def test_shipped_nginx_conf_passes_nginx_t(tmp_path: Path,
                                           certificate: tuple[Path, Path]) -> None:
    stderr = nginx_t(SHIPPED, tmp_path, certificate)
    # `listen ... http2` is deprecated from 1.25.1 (a warning), refused by nothing older
    assert all("emerg" not in line for line in stderr.splitlines()), stderr
    assert servers(SHIPPED) == ["80 [::]:80", "443 ssl http2 [::]:443 ssl http2"]
    assert not re.search(r"^\s*http2 on;", SHIPPED, flags=re.M)  # 1.25.1+: 1.22 refuses it
    assert f"ssl_certificate     {LIVE}/fullchain.pem;" in SHIPPED
    assert f"ssl_certificate_key {LIVE}/privkey.pem;" in SHIPPED
    assert "bot.example.org" not in SHIPPED


def test_port_80_serves_the_acme_challenge_and_redirects_the_rest(
        tmp_path: Path, certificate: tuple[Path, Path]) -> None:
    before_certificate = SHIPPED.split(HTTPS_LINE)[0]
    assert servers(before_certificate) == ["80 [::]:80"]
    nginx_t(before_certificate, tmp_path, certificate)  # valid with no certificate at all
    http = before_certificate.split("server {", 1)[1]
    acme = re.search(r"location \^~ /\.well-known/acme-challenge/ \{([^}]*)\}", http)
    assert acme and "root /var/www/letsencrypt;" in acme.group(1)
    assert "return" not in acme.group(1)
    rest = re.search(r"location / \{([^}]*)\}", http)
    assert rest and "return 301 https://$host$request_uri;" in rest.group(1)


def interpolate(text: str, env: Mapping[str, str]) -> str:
    """What Compose does to a value: `$$` is a `$`, `${X:-d}` is X or d, `${X:?m}` is X."""
    def one(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name, op, default = match.group(1), match.group(2), match.group(3)
        if name in env:
            return env[name]
        assert op == ":-", f"{name} must be set"
        return default
    return re.sub(r"\$\$|\$\{(\w+)(?:(:-|:\?)([^}]*))?\}", one, text)


COMPOSE: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def compose_nginx(tmp_path: Path, resolves: str, certificate: bool) -> str:
    """Run compose's nginx command as its container would, with the shipped nginx.conf
    mounted, Docker's DNS answering only `resolves`, and nginx itself a no-op."""
    bin_dir, live = tmp_path / "bin", tmp_path / "letsencrypt" / "live" / "bots.example.net"
    bin_dir.mkdir()
    live.mkdir(parents=True)
    if certificate:
        (live / "fullchain.pem").write_text("")
    (bin_dir / "getent").write_text(f'#!/bin/sh\n[ "$2" = "{resolves}" ]\n')
    (bin_dir / "nginx").write_text("#!/bin/sh\nexit 0\n")
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    service = COMPOSE["services"]["nginx"]
    mounts = {m.split(":")[1]: m.split(":")[0] for m in service["volumes"]}
    assert mounts["/etc/quizbot/nginx.conf"] == "./nginx.conf"
    assert mounts["/var/www/letsencrypt"] == "/var/www/letsencrypt"
    out = tmp_path / "default.conf"
    shell, flag, script = service["command"]
    script = (interpolate(script, {"PUBLIC_HOST": "bots.example.net"})
              .replace("/etc/quizbot/nginx.conf", str(DEPLOY / "nginx.conf"))
              .replace("/etc/nginx/conf.d/default.conf", str(out))
              .replace("/etc/letsencrypt", str(tmp_path / "letsencrypt"))
              .replace("/tmp/quizbot.conf", str(tmp_path / "quizbot.conf")))
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    subprocess.run([shell, flag, script], check=True, env=env, capture_output=True, timeout=30)
    return out.read_text()


@pytest.mark.parametrize("service", ["bot", "worker"])
def test_compose_nginx_reaches_the_bot_by_service_name(
        service: str, tmp_path: Path, certificate: tuple[Path, Path]) -> None:
    conf = compose_nginx(tmp_path, resolves=service, certificate=True)
    hosts = set(re.findall(r"^\s+server ([\w.-]+):(\d+)", conf, flags=re.M))
    assert hosts == {(service, "8443"), (service, "8080")}
    services = COMPOSE["services"]
    assert set(services[service]["profiles"]) & set(services["nginx"]["profiles"])
    # the ports nginx proxies to are the ones the service's config listens on, on 0.0.0.0
    name = services[service]["configs"][0]["source"]
    config = yaml.safe_load(interpolate(COMPOSE["configs"][name]["content"],
                                        {"PUBLIC_HOST": "bots.example.net"}))
    assert config["web"] == {"listen": "0.0.0.0", "port": 8080,
                             "public_url": "https://bots.example.net"}
    assert "server_name bots.example.net;" in conf and DOMAIN not in conf
    assert servers(conf)[1].startswith("443 ssl http2")
    nginx_t(conf.replace(f"server {service}:", "server 127.0.0.1:").replace(
        "/etc/letsencrypt/live/bots.example.net", LIVE), tmp_path, certificate)


def test_compose_nginx_serves_port_80_until_the_certificate_exists(tmp_path: Path) -> None:
    conf = compose_nginx(tmp_path, resolves="worker", certificate=False)
    assert servers(conf) == ["80 [::]:80"] and "acme-challenge" in conf


def test_every_service_config_turns_the_dashboard_on(tmp_path: Path) -> None:
    env = {"PUBLIC_HOST": "bots.example.net"}
    for name, entry in COMPOSE["configs"].items():
        path = tmp_path / f"{name}.yaml"
        path.write_text(interpolate(entry["content"], env))
        config = load_config(path, env={"TELEGRAM_WEBHOOK_SECRET": "s"})
        assert (config.web.port, config.web.public_url) == (8080, "https://bots.example.net")


def test_systemd_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if not analyze:
        pytest.skip("no systemd-analyze here (a systemd distribution has it)")
    text = (DEPLOY / "quizbot.service").read_text()
    executable = "/opt/quizbot/.venv/bin/quizbot"
    assert f"ExecStart={executable} run" in text
    assert re.search(r"^LimitNOFILE=\d+$", text, flags=re.M)
    assert re.search(r"^User=quizbot$", text, flags=re.M)
    # verify checks that ExecStart exists: point it at this checkout's quizbot
    installed = Path(sys.executable).with_name("quizbot")
    if not installed.exists():
        pytest.skip(f"{installed} is not installed (pip install -e .)")
    unit = tmp_path / "quizbot.service"
    unit.write_text(text.replace(executable, str(installed)))
    run = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True,
                         timeout=60, env={**os.environ, "SYSTEMD_LOG_LEVEL": "warning"})
    assert run.returncode == 0 and not run.stderr.strip(), run.stderr



def test_systemd_unit_starts_after_a_local_postgresql_without_needing_one() -> None:
    """docs/deploy.md's PostgreSQL steps put the database on the same host: at boot the bot
    started beside it and its first connection could be refused; at shutdown PostgreSQL
    could stop under it. Ordering only, so a SQLite host (no such unit) is unchanged."""
    text = (DEPLOY / "quizbot.service").read_text()
    unit = text.split("[Service]")[0]
    after = [w for line in re.findall(r"^After=(.*)$", unit, flags=re.M) for w in line.split()]
    assert "postgresql.service" in after
    assert "network-online.target" in after
    needs = re.findall(r"^(?:Requires|Requisite|BindsTo|PartOf|Wants)=(.*)$", unit, flags=re.M)
    assert not any("postgresql" in line for line in needs), needs

# Settings systemd adds up when a unit repeats them; any other one given twice silently
# keeps only its last value, which the first one's comment no longer describes.
ACCUMULATING = {"SystemCallFilter", "RestrictAddressFamilies", "CapabilityBoundingSet",
                "AmbientCapabilities", "Environment", "EnvironmentFile", "ExecStartPre",
                "ExecStartPost", "Wants", "After", "Documentation"}


def test_systemd_unit_sets_each_setting_once_as_the_docs_say() -> None:
    text = (DEPLOY / "quizbot.service").read_text()
    settings = re.findall(r"^([A-Za-z]+)=(.*)$", text, flags=re.M)
    names = [name for name, _ in settings if name not in ACCUMULATING]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []
    limit = dict(settings)["LimitNOFILE"]
    for page in ("deploy.md", "features.md"):
        said = re.findall(r"LimitNOFILE=(\d+)", (ROOT / "docs" / page).read_text())
        assert said and set(said) == {limit}, page


def uncommented_example() -> str:
    """config.example.yaml with every commented-out `# key: value` line switched on (a
    value is one word: prose such as `# four: absolute (...)` stays a comment)."""
    text = (DEPLOY / "config.example.yaml").read_text()
    return re.sub(r"^(\s*)# ([a-z_]+:(?: \S+)?)$", r"\1\2", text, flags=re.M)


def keys(data: Mapping[str, Any], prefix: str = "") -> list[str]:
    found = []
    for key, value in data.items():
        if isinstance(value, dict) and value:
            found += keys(value, f"{prefix}{key}.")
        else:
            found.append(f"{prefix}{key}")
    return found


def reference_keys() -> list[str]:
    """The keys docs/configuration.md's table documents (`a.b` / `.c` / `.d` rows spelled
    out, as `telegram.webhook.listen` / `.port`)."""
    table = (ROOT / "docs" / "configuration.md").read_text().split("## Config keys")[1]
    table = table.split("\n\n", 2)[1]
    found: list[str] = []
    for row in table.splitlines()[2:]:
        cell = row.split("|")[1]
        names = re.findall(r"`([a-z_.]+)`", cell)
        for name in names:
            found.append(found[-1].rsplit(".", 1)[0] + name if name.startswith(".") else name)
    return found


def test_every_example_key_is_accepted_and_documented(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.app import config_reader

    text = uncommented_example()
    data = yaml.safe_load(text)
    shown = keys(data)
    read: set[str] = set()  # every key the reader asks for, set or not
    get = config_reader.Reader.get

    def spy(self: config_reader.Reader, key: str, *args: Any) -> Any:
        read.add(self.prefix + key)
        return get(self, key, *args)

    monkeypatch.setattr(config_reader.Reader, "get", spy)
    for key in ("storage.pool_size", "content.dir", "discord.shards", "metrics.port",
                "web.port", "web.public_url", "telegram.webhook.secret_token"):
        assert key in shown, key  # commented out in the file, switched on here
    data["discord"]["shards"] = 2  # shard_ids goes with a number ("auto" is shown too)
    data["content"]["dir"] = str(tmp_path)  # the example's folder is on the server, not here
    path = tmp_path / "all.yaml"
    path.write_text(yaml.safe_dump(data))
    config = load_config(path, env={})  # an unknown key would be refused, naming it
    assert config.web.public_url == f"https://{DOMAIN}" and config.web.port == 8080
    reference = (ROOT / "docs" / "configuration.md").read_text()
    for key in shown:
        leaf = key.rsplit(".", 1)[-1]
        assert f"`{key}`" in reference or f".{leaf}`" in reference, key
    # ... and the other way: every key the reader knows, and every key the reference
    # documents, is shown in the example (admins is read as one mapping of platforms)
    sections = {key for key in read if any(other.startswith(key + ".") for other in read)}
    assert sorted(read - sections - set(shown) - {"admins"}) == []
    documented = reference_keys()
    assert len(documented) > 30 and "telegram.webhook.register" in documented
    assert sorted(set(documented) - set(shown) - {"admins.telegram", "admins.discord"}) == [], (
        "documented in docs/configuration.md but missing from deploy/config.example.yaml")
    assert sorted(set(documented) - read - {"admins.telegram", "admins.discord"}) == [], (
        "documented in docs/configuration.md but not a key the config reader knows")

"""Debian's clickhouse-server for the fleet tests (test_fleet.py,
scripts/bench/fleet): started by hand, with no systemd, from a
configuration in a temporary directory (its own data directory, free
ports on 127.0.0.1), and stopped at the end.

Server(tmp) is one server; cluster(tmp, name, n) starts n of them whose
configurations all define the cluster name, one shard per server, so
that a Distributed table on any of them spans every one.

Users: "default" (no password, as Debian's own configuration) and "ci",
whose password is PASSWORD, for the credentials tests.
"""

import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

SERVER = shutil.which("clickhouse-server") or "/usr/bin/clickhouse-server"
PASSWORD = "s3cret pa:ss"
START_TIMEOUT = 60


def available():
    return os.access(SERVER, os.X_OK)


def free_ports(n):
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


USERS = """<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users>
    <default><password></password><networks><ip>127.0.0.1</ip></networks>
      <profile>default</profile><quota>default</quota></default>
    <ci><password>%s</password><networks><ip>127.0.0.1</ip></networks>
      <profile>default</profile><quota>default</quota></ci>
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries>
    <errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows>
    <execution_time>0</execution_time></interval></default></quotas>
</yandex>
""" % PASSWORD

CONFIG = """<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>{dir}/server.log</log>
    <errorlog>{dir}/server.err.log</errorlog><size>10M</size><count>1</count>
  </logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>{http}</http_port>
  <tcp_port>{tcp}</tcp_port>
  <interserver_http_port>{inter}</interserver_http_port>
  <path>{dir}/data/</path>
  <tmp_path>{dir}/data/tmp/</tmp_path>
  <user_files_path>{dir}/data/user_files/</user_files_path>
  <format_schema_path>{dir}/data/format_schemas/</format_schema_path>
  <users_config>{dir}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <max_concurrent_queries>50</max_concurrent_queries>
  <remote_servers>{clusters}</remote_servers>
</yandex>
"""


class Server:
    """One clickhouse-server in directory d. The cluster's shards, when
    given, are [(host, tcp_port), ...]."""

    def __init__(self, d, ports=None, cluster=None, shards=()):
        self.dir = d
        os.makedirs(d, exist_ok=True)
        self.http, self.tcp, self.inter = ports or free_ports(3)
        self.url = "http://127.0.0.1:%d/" % self.http
        clusters = ""
        if cluster:
            clusters = "<%s>%s</%s>" % (cluster, "".join(
                "<shard><replica><host>%s</host><port>%d</port></replica>"
                "</shard>" % s for s in shards), cluster)
        with open(os.path.join(d, "users.xml"), "w") as f:
            f.write(USERS)
        with open(os.path.join(d, "config.xml"), "w") as f:
            f.write(CONFIG.format(dir=d, http=self.http, tcp=self.tcp,
                                  inter=self.inter, clusters=clusters))
        self.proc = None

    def start(self):
        self.out = open(os.path.join(self.dir, "stdout.log"), "wb")
        self.proc = subprocess.Popen(
            [SERVER, "--config-file=%s" % os.path.join(self.dir,
                                                       "config.xml")],
            stdin=subprocess.DEVNULL, stdout=self.out,
            stderr=subprocess.STDOUT, cwd=self.dir)
        return self

    def wait_ready(self):
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError("clickhouse-server exited %d: %s" % (
                    self.proc.returncode, self.log_tail()))
            try:
                with urllib.request.urlopen(self.url + "ping",
                                            timeout=1) as r:
                    if r.read().strip() == b"Ok.":
                        return self
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.05)
        raise AssertionError("clickhouse-server did not answer in %ds: %s"
                             % (START_TIMEOUT, self.log_tail()))

    def log_tail(self):
        try:
            with open(os.path.join(self.dir, "server.err.log"), "rb") as f:
                return f.read()[-2000:].decode("utf-8", "replace")
        except OSError:
            return "(no log)"

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc:
            self.out.close()
        self.proc = None

    def query(self, sql, user=None, password=None):
        """sql's answer as text (TabSeparated unless it says FORMAT)."""
        req = urllib.request.Request(self.url, data=sql.encode())
        if user:
            req.add_header("X-ClickHouse-User", user)
            req.add_header("X-ClickHouse-Key", password or "")
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.read().decode("utf-8", "replace")

    def scalar(self, sql):
        return self.query(sql).strip()


def cluster(tmp, name, n):
    """n servers, each defining cluster name over all of them."""
    ports = [free_ports(3) for _ in range(n)]
    shards = [("127.0.0.1", p[1]) for p in ports]
    servers = [Server(os.path.join(tmp, "node%d" % i), ports[i], name,
                      shards) for i in range(n)]
    for s in servers:
        s.start()
    for s in servers:
        s.wait_ready()
    return servers

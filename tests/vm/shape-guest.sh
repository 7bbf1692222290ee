#!/bin/bash
# Runs inside the VM of scripts/vm-shape-test, as root, under systemd.
# Prints "== " lines that the host script checks.
F=/footprint
U=/etc/systemd/system/shape-demo.service
[ "$(cat /proc/1/comm)" = systemd ] && echo "== systemd is pid 1"
python3 - <<'PY'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
for m in ("inet_diag", "tcp_diag", "udp_diag"):
    fd = os.open("/diag-modules/%s.ko" % m, os.O_RDONLY)
    if libc.syscall(313, fd, b"", 0) != 0:  # finit_module
        print("== cannot load", m, os.strerror(ctypes.get_errno()))
PY

unit() { # $1: extra [Service] lines
	cat > $U <<UNIT
[Service]
User=nobody
ExecStart=/usr/bin/python3 -m http.server -b 127.0.0.1 8080 -d /
ProtectSystem=full
PrivateTmp=true
CapabilityBoundingSet=
$1
UNIT
}

# the unit is started but the server binds a moment later (Type=simple
# says nothing of readiness): poll, bounded
cat > /usr/local/bin/wait-listen <<'SH'
#!/bin/sh
for _ in $(seq 300); do
	python3 -c 'import socket; socket.create_connection(("127.0.0.1", 8080), 1)' \
		2>/dev/null && exit 0
	sleep 0.2
done
exit 1
SH
chmod +x /usr/local/bin/wait-listen
listening() {
	wait-listen && return 0
	echo "== the server never listened"
	systemctl status shape-demo --no-pager -l | tail -n 8; return 1
}

mkdir -p /var/tmp/shape-demo
unit "NoNewPrivileges=true"
systemctl daemon-reload && systemctl start shape-demo && listening
$F shape --unit shape-demo -o /tmp/before.json; echo "== before rc=$?"
# the promises and what the process shows of them
python3 - <<'PY' && echo "== before fields ok"
import json
d = json.load(open("/tmp/before.json"))
u = d["unit"]["properties"]
want = {"NoNewPrivileges": "yes", "PrivateTmp": "yes", "ProtectSystem": "full",
        "CapabilityBoundingSet": "", "User": "nobody", "ActiveState": "active"}
bad = {k: u.get(k) for k in want if u.get(k) != want[k]}
m = [p for p in d["processes"] if p["main"]][0]
assert m["pid"] == d["unit"]["main_pid"] == d["main_pid"], d["main_pid"]
checks = [not bad, d["complete"], m["uids"] == [65534] * 4,
          m["cap_eff"] == m["cap_bnd"] == [], m["no_new_privs"] is True,
          m["listeners"] == ["tcp/127.0.0.1:8080"],
          m["namespaces"]["mnt"]["differs_from_init"] is True,
          m["namespaces"]["net"]["differs_from_init"] is False,
          any(x["mount_point"] == "/etc" and not x["rw"] for x in m["mounts"]),
          any(x["mount_point"] == "/tmp" and x["rw"] for x in m["mounts"]),
          m["cgroup"] == "/system.slice/shape-demo.service"]
print("before:", bad, checks)
raise SystemExit(0 if all(checks) else 1)
PY

# ReadWritePaths= would need /var/tmp/shape-demo inside the private
# /var/tmp (PrivateTmp=), where it does not exist, so the unit would not
# start; BindPaths= takes its source from the host's /var/tmp
CHANGE="BindPaths=/var/tmp/shape-demo"
unit "$CHANGE"
systemctl daemon-reload && systemctl restart shape-demo && listening
$F shape --unit shape-demo -o /tmp/after.json; echo "== after rc=$?"

$F shape diff /tmp/before.json /tmp/after.json -o /tmp/diff.json; echo "== diff rc=$?"
cat /tmp/diff.json
python3 - <<'PY' && echo "== exact drift"
import json
d = json.load(open("/tmp/diff.json"))
got = sorted((x["field"], x["change"], x["subject"]) for x in d["drift"])
want = sorted([("no_new_privs", "changed", "no_new_privs"),
               ("mounts", "added rw", "/var/tmp/shape-demo"),
               ("unit", "changed", "BindPaths"),
               ("unit", "changed", "NoNewPrivileges")])
print("drift:", got)
raise SystemExit(0 if got == want and not d["cap_eff_changed"]
                 and not d["sockets_changed"] else 1)
PY
for b in cap_eff_changed no_new_privs_changed sockets_changed mounts_changed; do
	grep -q "\"$b\":true" /tmp/diff.json && echo "== $b"
done
echo "allow mount /var/tmp/shape-demo rw" > /tmp/mount.policy
$F shape diff /tmp/before.json /tmp/after.json --policy /tmp/mount.policy
echo "== policy mount only rc=$?"
cat > /tmp/all.policy <<POL
allow mount /var/tmp/shape-demo rw
allow no_new_privs
allow property NoNewPrivileges
allow property BindPaths
POL
$F shape diff /tmp/before.json /tmp/after.json --policy /tmp/all.policy
echo "== policy all rc=$?"

# step 3-4 as one traced change: the edit and the restart
unit "NoNewPrivileges=true"
systemctl daemon-reload && systemctl restart shape-demo && listening
# can this kernel trace at all? (the libbpf warnings say why not)
FOOTPRINT_DEBUG=1 $F run -q --root /tmp -- /bin/true 2>&1 | tail -n 15
echo "== plain run rc=${PIPESTATUS[0]}"
$F run --unit shape-demo --root /etc/systemd/system --receipt /tmp/r.json \
	--record /tmp/r.fplog --shape-policy /tmp/mount.policy -- /bin/sh -c \
	"sed -i 's|^NoNewPrivileges=true|$CHANGE|' $U &&
	 systemctl daemon-reload && systemctl restart shape-demo &&
	 /usr/local/bin/wait-listen"
echo "== run --unit rc=$?"
grep -q '"shape_diff":{"cap_eff_changed":false,"no_new_privs_changed":true' /tmp/r.json &&
	echo "== receipt has shape diff"
grep -o '"shape_diff":{[^]]*' /tmp/r.json
$F replay -q --receipt /tmp/r2.json /tmp/r.fplog
cmp /tmp/r.json /tmp/r2.json && echo "== replay identical"
grep -q "its shape drifted" /tmp/r.json && echo "== verdict failed by the drift"
python3 - <<'PY' && echo "== receipt drift exact"
import json
d = json.load(open("/tmp/r.json"))["shape_diff"]
got = sorted((x["field"], x["change"], x["subject"], x["allowed"])
             for x in d["drift"])
print("receipt drift:", got)
raise SystemExit(0 if got == sorted([
    ("no_new_privs", "changed", "no_new_privs", False),
    ("mounts", "added rw", "/var/tmp/shape-demo", True),
    ("unit", "changed", "BindPaths", False),
    ("unit", "changed", "NoNewPrivileges", False)]) else 1)
PY
echo "== receipt $(cat /tmp/r.json)"
echo "== done"

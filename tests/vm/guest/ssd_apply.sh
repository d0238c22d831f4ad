# ssd_apply.sh - guest side of test_ssd_apply.sh on the 6.1 kernel: a
# schedio-server on the guest's loopback holds one result for a model named
# like the scratch disk; `schedio apply` writes its recommendation into the
# real cgroup2 root, and the kernel must accept it, enable iocost and read
# back exactly the lines `schedio config` gives. virtio-blk has no
# device/model in sysfs, so the disk list comes from a small sysfs-shaped
# tree naming the real scratch disk's MAJ:MIN (--sysfs-root).
# Needs schedio-server and schedio on PATH and /vm/result.json.gz.
cg=/sys/fs/cgroup
dev=$VM_DISK_DEV
model="Schedio VM Disk"
url=http://127.0.0.1:18080
failed=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failed=1; }

ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
schedio-server --listen 127.0.0.1:18080 --db /tmp/schedio.db --open-submissions >/tmp/server.out 2>&1 &
server=$!
i=0
until schedio health --server $url >/dev/null 2>&1 || [ $i -ge 100 ]; do
	sleep 0.2
	i=$((i + 1))
done
schedio health --server $url || { fail "server did not start: $(cat /tmp/server.out)"; exit 1; }
schedio submit --server $url /vm/result.json.gz && ok "result submitted" || fail "submit"

mkdir -p /tmp/sys/block/vda/device
echo "$dev" >/tmp/sys/block/vda/dev
echo "$model" >/tmp/sys/block/vda/device/model
echo "FW1" >/tmp/sys/block/vda/device/firmware_rev

want=$(schedio config --server $url --dev "$dev" "$model" 2>/dev/null)
want_model=$(echo "$want" | sed -n 1p)
want_qos=$(echo "$want" | sed -n 2p)
[ -n "$want_qos" ] && ok "recommendation: $want_model / $want_qos" || fail "schedio config gave nothing"

schedio apply --dry-run --server $url --sysfs-root /tmp/sys
grep -q "^$dev enable=1" $cg/io.cost.qos && fail "--dry-run enabled iocost" || ok "--dry-run wrote nothing"

if schedio apply --server $url --sysfs-root /tmp/sys; then
	ok "schedio apply exited 0"
else
	fail "schedio apply failed"
fi
got_model=$(grep "^$dev " $cg/io.cost.model)
got_qos=$(grep "^$dev " $cg/io.cost.qos)
echo "io.cost.model: $got_model"
echo "io.cost.qos:   $got_qos"
[ "$got_model" = "$want_model" ] && ok "the kernel reads back io.cost.model as recommended" ||
	fail "io.cost.model reads '$got_model', want '$want_model'"
[ "$got_qos" = "$want_qos" ] && ok "the kernel reads back io.cost.qos as recommended (iocost enabled)" ||
	fail "io.cost.qos reads '$got_qos', want '$want_qos'"

kill $server
wait $server 2>/dev/null
exit $failed

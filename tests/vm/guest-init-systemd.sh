#!/bin/busybox sh
# guest-init-systemd.sh - /init of the initramfs vm-run.sh -R builds: it
# mounts the root disk (/dev/vda, ext4), puts the test in it (/vm: the
# script, -f files, env; a oneshot unit that runs the script between the
# BEGIN/END markers vm-run.sh looks for and then powers off) and hands over to
# the disk's systemd with switch_root.
/bin/busybox --install -s /bin
export PATH=/bin

fail() {
	echo "vm-init: $*"
	poweroff -f
}

mkdir -p /proc /sys /dev /newroot
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
while read -r mod; do
	insmod "/lib/modules/$mod" || echo "vm-init: insmod $mod failed"
done </vm/modules.load
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
mount -t ext4 -o rw /dev/vda /newroot || fail "cannot mount the root disk /dev/vda"
[ -L /newroot/sbin/init ] || [ -x /newroot/sbin/init ] || fail "no /sbin/init on the root disk"

r=/newroot
rm -rf "$r/vm"
cp -a /vm "$r/vm"
# The disk's own identity: a fresh machine-id, so systemd sees no first boot
# (systemd-firstboot would prompt on the console) and the agent has an id.
tr -d '-' </proc/sys/kernel/random/uuid >"$r/etc/machine-id"
: >"$r/etc/fstab"
# Nothing may read from or write to the console but the test: no gettys.
for u in serial-getty@ttyS0.service getty@tty1.service systemd-firstboot.service; do
	ln -sf /dev/null "$r/etc/systemd/system/$u"
done

# The test as a service: after boot, output on the serial console, then off.
cat >"$r/vm/run.sh" <<'EOF'
#!/bin/sh
. /vm/env
export VM_DISK=/dev/vdb VM_OUT=/out
VM_DISK_DEV=$(cat /sys/block/vdb/dev 2>/dev/null)
export VM_DISK_DEV
mkdir -p /out
read -r up _ </proc/uptime
echo "SCHEDIO-VM-BEGIN $VM_NONCE uptime=$up"
cd /vm
sh /vm/script.sh </dev/null 2>&1
rc=$?
read -r up _ </proc/uptime
echo "SCHEDIO-VM-END $VM_NONCE rc=$rc uptime=$up"
if [ -b /dev/vdc ]; then
	tar -cf /dev/vdc -C /out . || echo "vm-init: writing /out to /dev/vdc failed"
fi
sync
systemctl --no-block poweroff
EOF
mkdir -p "$r/etc/systemd/system/multi-user.target.wants"
cat >"$r/etc/systemd/system/schedio-vm-test.service" <<'EOF'
[Unit]
Description=schedio VM test script
After=multi-user.target

[Service]
Type=oneshot
ExecStart=/bin/sh /vm/run.sh
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
TimeoutStartSec=infinity
EOF
ln -sf ../schedio-vm-test.service "$r/etc/systemd/system/multi-user.target.wants/schedio-vm-test.service"

# Only emergencies from the kernel on the console from now on.
echo 1 >/proc/sys/kernel/printk
for m in dev proc sys; do
	mount --move "/$m" "$r/$m"
done
exec switch_root /newroot /sbin/init

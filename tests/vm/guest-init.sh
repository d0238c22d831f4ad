#!/bin/busybox sh
# guest-init.sh - /init of the VM test bed's initramfs (runs under busybox sh).
#
# Mounts the kernel filesystems, loads the modules listed in /vm/modules.load,
# enables the io and cpu controllers at the cgroup2 root, runs /vm/script.sh
# between the BEGIN/END markers vm-run.sh looks for, tars /out onto the
# second virtio disk when there is one, and powers off. vm-run's -n NVMe
# disks are found by serial and passed to the script in VM_NVME.
/bin/busybox --install -s /bin
export PATH=/usr/local/bin:/bin
export HOME=/root

mkdir -p /proc /sys /dev /tmp /out /root
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t bpf bpf /sys/fs/bpf
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null

while read -r mod; do
	insmod "/lib/modules/$mod" || echo "vm-init: insmod $mod failed"
done </vm/modules.load

for c in io cpu; do
	echo "+$c" >/sys/fs/cgroup/cgroup.subtree_control ||
		echo "vm-init: cannot enable the $c controller"
done

# Device nodes of the virtio disks appear asynchronously after the driver loads.
i=0
while [ ! -b /dev/vda ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -b /dev/vda ] || echo "vm-init: no /dev/vda"

. /vm/env
export VM_DISK=/dev/vda VM_OUT=/out

# vm-run's -n disks: controller N has serial schedioN; list their namespaces'
# block devices in that order (the driver probes controllers asynchronously,
# so kernel names need not follow it). Wait up to 20 s for all of them.
if [ -n "${VM_NVME_COUNT:-}" ]; then
	i=0
	while :; do
		VM_NVME= n=0
		while [ $n -lt "$VM_NVME_COUNT" ]; do
			dev=
			for d in /sys/block/nvme*; do
				[ -e "$d/device/serial" ] || continue
				read -r s <"$d/device/serial"
				if [ "$s" = "schedio$n" ] && [ -b "/dev/${d##*/}" ]; then
					dev=/dev/${d##*/}
				fi
			done
			[ -n "$dev" ] || break
			VM_NVME="$VM_NVME${VM_NVME:+ }$dev"
			n=$((n + 1))
		done
		[ $n -lt "$VM_NVME_COUNT" ] && [ $i -lt 200 ] || break
		sleep 0.1
		i=$((i + 1))
	done
	[ $n -eq "$VM_NVME_COUNT" ] || echo "vm-init: only $n of $VM_NVME_COUNT NVMe disks appeared"
	export VM_NVME
fi
VM_DISK_DEV=$(cat /sys/block/vda/dev 2>/dev/null)
export VM_DISK_DEV

# Only emergencies reach the console now, so kernel messages do not land
# inside the script's output.
echo 1 >/proc/sys/kernel/printk
read -r up _ </proc/uptime
echo "SCHEDIO-VM-BEGIN $VM_NONCE uptime=$up"
cd /vm
sh /vm/script.sh </dev/null 2>&1
rc=$?
read -r up _ </proc/uptime
echo "SCHEDIO-VM-END $VM_NONCE rc=$rc uptime=$up"

if [ -b /dev/vdb ]; then
	tar -cf /dev/vdb -C /out . || echo "vm-init: writing /out to /dev/vdb failed"
fi
sync
poweroff -f

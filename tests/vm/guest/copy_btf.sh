# copy_btf.sh - guest side of fetch-btf.sh: leaves the running kernel's BTF
# in $VM_OUT/vmlinux.btf.
cp /sys/kernel/btf/vmlinux "$VM_OUT/vmlinux.btf" && echo "copied $(wc -c <"$VM_OUT/vmlinux.btf") bytes of BTF from $(uname -r)"

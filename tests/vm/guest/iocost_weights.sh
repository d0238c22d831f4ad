# iocost_weights.sh - guest side of test_iocost_weights.sh (Debian 12's 6.1
# kernel): schedio-agent's iocost section with iocost off, then with iocost
# on (fixed vrate, a linear model far below the disk's speed) and two
# cgroups of io.weight 100:300 and then 100:100 saturating the disk with
# 16-deep random reads each. Reports land in $VM_OUT for the host to judge.
# Needs schedio-agent and randread on PATH. Env: AGENT_SECONDS (default 6).
cg=/sys/fs/cgroup
dev=$VM_DISK_DEV
secs=${AGENT_SECONDS:-6}
mkdir -p /etc && echo 0123456789abcdef0123456789abcdef >/etc/machine-id
echo "disk $VM_DISK ($dev)"

run_agent() { # name: one --once interval while whatever is running runs
	schedio-agent --once --duration "$secs" --stdout >"$VM_OUT/$1.json" 2>"$VM_OUT/$1.err"
	echo "agent $1: exit $?, $(wc -c <"$VM_OUT/$1.json") bytes of report"
}

# 1. iocost not enabled: the io controller is there, no disk has iocost.
secs_saved=$secs
secs=2
run_agent off
secs=$secs_saved

# 2. iocost on: a budget of 1000 random reads/s, an order of magnitude below
# what the emulated disk does, so both cgroups always have IO waiting. The
# latency targets are loose so QoS is always met and vrate stays at 100%.
echo "$dev enable=1 ctrl=user rpct=95 rlat=100000 wpct=95 wlat=100000 min=100 max=100" >$cg/io.cost.qos
echo "$dev ctrl=user model=linear rbps=40000000 rseqiops=2000 rrandiops=1000 wbps=40000000 wseqiops=2000 wrandiops=1000" >$cg/io.cost.model
echo "io.cost.qos:   $(grep "^$dev " $cg/io.cost.qos)"
echo "io.cost.model: $(grep "^$dev " $cg/io.cost.model)"

# The load runs until killed: the agent's start (BPF load under TCG) takes a
# few seconds of its own, so a fixed load length would be a guess.
pids=
for w in 100 300; do
	mkdir $cg/w$w
	echo $w >$cg/w$w/io.weight
	sh -c "echo \$\$ >$cg/w$w/cgroup.procs && exec randread $VM_DISK 600 16 >/tmp/w$w.reads" &
	pids="$pids $!"
done
sleep 2
run_agent w100_w300
# 3. the same load at 100:100
echo 100 >$cg/w300/io.weight
sleep 3
run_agent w100_w100
kill $pids
wait
for w in 100 300; do echo "w$w io.stat: $(grep "^$dev " $cg/w$w/io.stat)"; done
